import got, { type Got } from "got";
import { COG_TERMINAL, mapCogInput, type CogPrediction, type CogRunnerSettings } from "@svc/core";
import { abortableDelay, RunnerCanceled, RunnerError, type Runner } from "../runner.js";
import { copyOutputs } from "./outputs.js";

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

export interface CogRunnerDeps {
  results: CogResults;
  /** The URL Cog must POST the completed prediction to (carries its own token). */
  webhookUrl(predictionId: string): string;
  /** Output URLs may point at loopback/private addresses other than the model's own servers. */
  allowPrivateOutputs: boolean;
  /** The largest output file accepted (OUTPUT_MAX_BYTES); larger ones fail the run. */
  maxOutputBytes: number;
  log?(message: string, meta: Record<string, unknown>): void;
}

const OUTPUT_TIMEOUT_MS = 120_000;

class ServerUnavailable extends Error {}

/**
 * Runs a model on Cog servers. PUT /predictions/{run id} with Prefer: respond-async: idempotent,
 * so a retried job re-attaches to a running prediction instead of starting the model twice, and
 * cancelable (Cog cancels only asynchronous predictions). The completed prediction comes back
 * through the webhook. A server is used only while /health-check says READY and this process has
 * a free slot on it; 409 (busy), 5xx and connection errors move on to another server with backoff;
 * a server that stops answering mid-run costs one dispatch attempt, and the run is sent elsewhere.
 */
export function createCogRunner(deps: CogRunnerDeps): Runner {
  const inUse = new Map<string, number>();
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

  /** A READY server with a free slot; waits (polling, with backoff) while none is, until aborted. */
  async function acquire(s: CogRunnerSettings, signal: AbortSignal, avoid: Set<string>): Promise<string> {
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      for (const server of s.servers) {
        if (avoid.has(server) && avoid.size < s.servers.length) continue;
        if ((inUse.get(server) ?? 0) >= s.concurrency) continue;
        if ((await health(s, server)) !== "READY") continue;
        inUse.set(server, (inUse.get(server) ?? 0) + 1);
        return server;
      }
      await abortableDelay(wait, signal);
    }
  }

  const release = (server: string) => inUse.set(server, Math.max(0, (inUse.get(server) ?? 1) - 1));

  /** Starts (or re-attaches to) the prediction; false when the server is busy (409). */
  async function dispatch(
    s: CogRunnerSettings,
    server: string,
    id: string,
    input: Record<string, unknown>,
  ): Promise<boolean> {
    let res;
    try {
      res = await http(s.request_timeout_ms).put(
        new URL(`predictions/${encodeURIComponent(id)}`, `${server}/`),
        {
          headers: { prefer: "respond-async" },
          json: {
            id,
            input,
            webhook: deps.webhookUrl(id),
            webhook_events_filter: ["output", "logs", "completed"],
          },
        },
      );
    } catch (error) {
      throw new ServerUnavailable(`${server}: ${(error as Error).message}`);
    }
    if (res.statusCode === 409) return false;
    if (res.statusCode >= 500) throw new ServerUnavailable(`${server} answered ${res.statusCode}`);
    if (res.statusCode >= 400)
      throw new RunnerError("INVALID_INPUT", `the model refused the input: ${res.body.slice(0, 500)}`);
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
    async run({ runId, input, settings, signal, outputs, unitsRequested }) {
      if (settings.kind !== "cog") throw new RunnerError("INTERNAL_ERROR", "not a cog model");
      const s = settings;
      const id = runId;
      const cogInput = mapCogInput(input, s.input_map);
      let prediction = await deps.results.get(id);
      let server = prediction ? null : await deps.results.serverOf(id);
      const failedServers = new Set<string>();
      let dispatches = 0;
      while (!prediction) {
        const reattach = server !== null;
        // The slot taken for this attempt, given back whatever happens to it.
        let held: string;
        if (server) inUse.set((held = server), (inUse.get(server) ?? 0) + 1);
        else held = server = await acquire(s, signal, failedServers);
        try {
          // Recorded before the PUT: a worker that dies once the prediction has started, even before
          // it hears back, leaves the next one a server to re-attach to rather than a second start.
          await deps.results.setServer(id, server);
          if (!(await dispatch(s, server, id, cogInput))) {
            log("cog server busy", { server });
            server = null;
            await abortableDelay(200, signal);
            continue;
          }
          log(reattach ? "cog prediction re-attached" : "cog prediction started", {
            server,
            prediction_id: id,
          });
          prediction = await await_(s, server, id, signal);
        } catch (error) {
          if (signal.aborted) {
            await cancel(s, held, id);
            throw signal.reason;
          }
          if (!(error instanceof ServerUnavailable)) throw error;
          log("cog server unavailable", { server: held, error: error.message });
          failedServers.add(held);
          await deps.results.setServer(id, null);
          server = null;
          if (++dispatches >= s.dispatch_attempts) {
            throw new RunnerError(
              "MODEL_ERROR",
              `No Cog server could complete the prediction (${error.message}).`,
            );
          }
        } finally {
          release(held);
        }
      }
      if (!COG_TERMINAL.has(prediction.status))
        throw new RunnerError("MODEL_ERROR", `unexpected prediction status ${prediction.status}`);
      if (prediction.status === "failed")
        throw new RunnerError("MODEL_ERROR", prediction.error || "The model failed.");
      if (prediction.status === "canceled")
        throw new RunnerCanceled("The model server canceled the prediction.");
      const urls = await copyOutputs(prediction.output, outputs, signal, {
        allowPrivate: deps.allowPrivateOutputs,
        trustedOrigins: new Set(s.servers.map((server) => new URL(server).origin)),
        timeoutMs: OUTPUT_TIMEOUT_MS,
        maxBytes: deps.maxOutputBytes,
      });
      const units = s.output === "image" ? urls.length : unitsRequested;
      return { units, output: { [s.output === "image" ? "images" : s.output]: urls } };
    },
  };
}
