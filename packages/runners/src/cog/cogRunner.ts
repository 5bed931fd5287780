import got, { type Got } from "got";
import { Agent, request } from "undici";
import {
  withTimeLimit,
  COG_TERMINAL,
  mapCogInput,
  serverOfSlot,
  type CogPrediction,
  type CogRunnerSettings,
} from "@svc/core";
import { abortableDelay, RunnerCanceled, RunnerError, type Runner, type ServerSlots } from "../runner.js";
import { outputOfKind, copyOutputs } from "../outputs.js";
import { cogFetchPolicy } from "./outputPolicy.js";

/**
 * Where completed predictions arrive. Cog calls our webhook (on any worker replica); the result is
 * kept (so a retried job finds a prediction that finished meanwhile) and announced (so the waiting
 * worker wakes at once). Also remembers which server holds a prediction, for re-attaching.
 */
export interface CogResults {
  get(predictionId: string): Promise<CogPrediction | null>;
  /** Resolves with the completed prediction, or with null when `signal` aborts. */
  wait(predictionId: string, signal: AbortSignal): Promise<CogPrediction | null>;
  serverOf(predictionId: string): Promise<string | null>;
  setServer(predictionId: string, server: string | null): Promise<void>;
}

/** The run's place on the model's servers (packages/queue scheduler): leased before the run starts. */
/** Where Cog servers report a prediction's end (the workers' callback server): Cog's own. */
export interface CogCallbacks {
  results: CogResults;
  /** The URL Cog must POST the completed prediction to (carries its own token). */
  webhookUrl(predictionId: string): string;
}

export interface CogRunnerDeps extends CogCallbacks {
  slots: ServerSlots;
  /** Output URLs may point at loopback/private addresses other than the model's own servers. */
  allowPrivateOutputs: boolean;
  /** The largest output file accepted (OUTPUT_MAX_BYTES); larger ones fail the run. */
  maxOutputBytes: number;
  /** PUBLIC_BASE_URL: outputs Cog uploaded to the workers' upload endpoint are ours already. */
  publicBaseUrl?: string;
  /** Routine steps of every prediction at debug; what an operator acts on (busy, unavailable, re-attached) at info. */
  log?(level: "debug" | "info", message: string, meta: Record<string, unknown>): void;
}

/**
 * How long a taken-over run waits for the result of the prediction an earlier attempt sent before
 * sending it again: Cog retries a webhook within a few seconds (backoff from 0.1 s).
 */
const TAKEOVER_RESULT_GRACE_MS = 3_000;

class ServerUnavailable extends Error {}

/** 503: the server cannot run anything now (setup not done or failed, defunct): not the run's fault. */
class ServerNotReady extends Error {}

/**
 * Runs a model on Cog servers. The scheduler has leased the run a slot on one of them (the run
 * waited QUEUED until then), so a prediction is sent only where there is room. PUT
 * /predictions/{run id} with Prefer: respond-async: idempotent, so a retried job re-attaches to a
 * running prediction instead of starting the model twice, and cancelable (Cog cancels only
 * asynchronous predictions). The completed prediction comes back through the webhook, whose
 * receiver gives the slot back at once; the runner gives it back too (idempotent) before copying
 * the outputs. A 409 means the server still runs something it was given before (a lease that
 * lapsed): the PUT is repeated with backoff. A server that stops answering mid-run costs one
 * dispatch attempt, and the run moves to a free slot on another server.
 */
export function createCogRunner(deps: CogRunnerDeps): Runner {
  const predictions = new Agent({ keepAliveTimeout: 30_000 });
  const clients = new Map<number, Got>();
  const http = (timeoutMs: number) => {
    let client = clients.get(timeoutMs);
    if (!client)
      clients.set(
        timeoutMs,
        (client = got.extend({
          timeout: { request: timeoutMs },
          retry: { limit: 0 },
          throwHttpErrors: false,
        })),
      );
    return client;
  };
  const log = deps.log ?? (() => {});

  async function health(s: CogRunnerSettings, server: string): Promise<string | null> {
    try {
      const res = await http(s.request_timeout_ms).get(new URL("health-check", `${server}/`), {
        responseType: "json",
      });
      return res.statusCode === 200 ? String((res.body as { status?: unknown }).status) : null;
    } catch {
      return null;
    }
  }

  /** A free slot's server for a run whose server failed (or that has none), waiting while none is free. */
  async function anotherServer(
    s: CogRunnerSettings,
    runId: string,
    avoid: Set<string>,
    signal: AbortSignal,
  ): Promise<string> {
    // Once every server has failed, any may be tried again.
    const skip = avoid.size < s.servers.length ? [...avoid] : [];
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      const slot = await deps.slots.relocate(runId, skip);
      const server = slot && serverOfSlot(slot);
      if (server) return server;
      await abortableDelay(wait, signal);
    }
  }

  /** Starts (or re-attaches to) the prediction; false when the server is busy (409). */
  async function dispatch(
    s: CogRunnerSettings,
    server: string,
    id: string,
    input: Record<string, unknown>,
  ): Promise<boolean> {
    // undici directly, on kept-alive connections: this request is what a freed server waits for.
    let status: number;
    let body: string;
    try {
      const res = await request(new URL(`predictions/${encodeURIComponent(id)}`, `${server}/`), {
        method: "PUT",
        dispatcher: predictions,
        headers: { prefer: "respond-async", "content-type": "application/json" },
        body: JSON.stringify({
          id,
          input,
          webhook: deps.webhookUrl(id),
          webhook_events_filter: ["output", "logs", "completed"],
        }),
        headersTimeout: s.request_timeout_ms,
        bodyTimeout: s.request_timeout_ms,
      });
      status = res.statusCode;
      body = await res.body.text();
    } catch (error) {
      throw new ServerUnavailable(`${server}: ${(error as Error).message}`);
    }
    if (status === 409) return false;
    if (status === 503) throw new ServerNotReady(`${server} is not ready`);
    if (status >= 500) throw new ServerUnavailable(`${server} answered ${status}`);
    if (status >= 400)
      throw new RunnerError("INVALID_INPUT", `the model refused the input: ${body.slice(0, 500)}`);
    return true;
  }

  /** Waits for the webhook while checking that the server is alive; throws ServerUnavailable if it dies. */
  async function await_(
    s: CogRunnerSettings,
    server: string,
    id: string,
    signal: AbortSignal,
  ): Promise<CogPrediction> {
    const stop = new AbortController();
    const both = AbortSignal.any([signal, stop.signal]);
    const watchdog = (async () => {
      let misses = 0;
      while (!both.aborted) {
        await abortableDelay(s.health_interval_ms, both).catch(() => {});
        if (both.aborted) return;
        misses = (await health(s, server)) === null ? misses + 1 : 0;
        if (misses >= 2) return "lost" as const;
      }
    })();
    try {
      const outcome = await Promise.race([deps.results.wait(id, both), watchdog]);
      if (outcome === "lost")
        throw new ServerUnavailable(`${server} stopped answering during the prediction`);
      signal.throwIfAborted();
      return outcome as CogPrediction;
    } finally {
      stop.abort();
    }
  }

  async function cancel(s: CogRunnerSettings, server: string, id: string) {
    await http(s.request_timeout_ms)
      .post(new URL(`predictions/${encodeURIComponent(id)}/cancel`, `${server}/`))
      .catch(() => {});
  }

  return {
    async begin({ runId, input, settings, slot }) {
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind !== "cog" || !server) return false;
      const sent = await dispatch(settings, server, runId, mapCogInput(input, settings.input_map)).catch(
        () => false,
      );
      if (sent) log("debug", "cog prediction started", { server, prediction_id: runId, early: true });
      return sent;
    },

    async abandon({ runId, settings, slot }) {
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind === "cog" && server) await cancel(settings, server, runId);
    },

    async run({ runId, input, settings, signal, outputs, slot, fresh, begun }) {
      if (settings.kind !== "cog") throw new RunnerError("INTERNAL_ERROR", "not a cog model");
      const s = settings;
      const id = runId;
      const cogInput = mapCogInput(input, s.input_map);
      // A run taken over after a crash may find its prediction finished, or running somewhere.
      let prediction = fresh ? null : await deps.results.get(id);
      // Where an earlier attempt sent it: a server it moved to is recorded, else it is its slot's.
      const slotServer = slot ? serverOfSlot(slot) : null;
      const runningOn = prediction || fresh ? null : ((await deps.results.serverOf(id)) ?? slotServer);
      const failedServers = new Set<string>();
      let server = runningOn ?? slotServer;
      // A run taken over: its prediction may have ended while its result is still on the way
      // (Cog retries the webhook; the receiver it reached may have been the worker that died).
      // Cog forgets a finished prediction, so a PUT now would run the model a second time: the
      // result gets a moment to arrive first. A prediction still running is re-attached to after.
      if (!prediction && !fresh) {
        // A limit whose timer holds its signal (core's timeLimit): nothing but a collected
        // signal could keep this wait open otherwise.
        prediction = await withTimeLimit(TAKEOVER_RESULT_GRACE_MS, [signal], (limited) =>
          deps.results.wait(id, limited),
        );
        if (signal.aborted) {
          if (server) await cancel(s, server, id);
          throw signal.reason;
        }
      }
      if (!prediction && !server) server = await anotherServer(s, id, failedServers, signal);
      let dispatches = 0;
      let busyWait = 100;
      // Sent already (begin): the first turn waits for it rather than sending it again.
      let sent = !prediction && server === slotServer && (await (begun ?? false));
      while (!prediction) {
        const on = server!;
        try {
          if (sent) {
            sent = false;
            log("debug", "cog prediction continued", { server: on, prediction_id: id });
            prediction = await await_(s, on, id, signal);
            continue;
          }
          // A server other than the slot's is recorded before the PUT: a worker that dies once the
          // prediction has started, even before it hears back, leaves the next one a server to
          // re-attach to rather than a second start. (The slot's server is in the job already.)
          if (on !== slotServer) await deps.results.setServer(id, on);
          if (!(await dispatch(s, on, id, cogInput))) {
            log("info", "cog server busy", { server: on });
            await abortableDelay(busyWait, signal);
            busyWait = Math.min(busyWait * 2, 2_000);
            continue;
          }
          log(
            runningOn === on ? "info" : "debug",
            runningOn === on ? "cog prediction re-attached" : "cog prediction started",
            {
              server: on,
              prediction_id: id,
            },
          );
          prediction = await await_(s, on, id, signal);
        } catch (error) {
          if (signal.aborted) {
            await cancel(s, on, id);
            throw signal.reason;
          }
          if (error instanceof ServerNotReady) {
            // Not the run's fault, and no dispatch attempt spent: a free slot on another server if
            // there is one now, else this server again after a pause (its health check takes its
            // slots away meanwhile, and gives them back once it is ready).
            log("info", "cog server not ready", { server: on });
            const elsewhere = await deps.slots.relocate(id, [on]);
            const other = elsewhere && serverOfSlot(elsewhere);
            if (other && other !== on) server = other;
            else {
              await abortableDelay(busyWait, signal);
              busyWait = Math.min(busyWait * 2, 2_000);
            }
            continue;
          }
          if (!(error instanceof ServerUnavailable)) throw error;
          log("info", "cog server unavailable", { server: on, error: error.message });
          failedServers.add(on);
          await deps.results.setServer(id, null);
          if (++dispatches >= s.dispatch_attempts) {
            throw new RunnerError(
              "MODEL_ERROR",
              `No Cog server could complete the prediction (${error.message}).`,
            );
          }
          server = await anotherServer(s, id, failedServers, signal);
        }
      }
      // The server is free: the next run goes there while this one's outputs are copied.
      // (Failing here is harmless: the worker gives it back again when the run ends.)
      await deps.slots
        .release(id)
        .catch((error: unknown) =>
          log("info", "cog slot release failed", { error: (error as Error).message }),
        );
      if (!COG_TERMINAL.has(prediction.status))
        throw new RunnerError("MODEL_ERROR", `unexpected prediction status ${prediction.status}`);
      if (prediction.status === "failed")
        throw new RunnerError("MODEL_ERROR", prediction.error || "The model failed.");
      if (prediction.status === "canceled")
        throw new RunnerCanceled("The model server canceled the prediction.");
      const urls = await copyOutputs(prediction.output, outputs, signal, cogFetchPolicy(s.servers, deps));
      return { output: outputOfKind(s.output, urls) };
    },
  };
}
