import {
  withTimeLimit,
  COG_TERMINAL,
  mapCogInput,
  serverOfSlot,
  type CogPrediction,
  type CogRunnerSettings,
} from "@svc/core";
import { abortableDelay, RunnerCanceled, RunnerError, type Runner, type ServerSlots } from "../runner.js";
import { EarlyRequests } from "../earlyRequests.js";
import { outputOfKind, copyOutputs } from "../outputs.js";
import { probeServer } from "../servers.js";
import { cogFetchPolicy } from "./outputPolicy.js";
import {
  cancelPrediction,
  sendPrediction,
  ServerNotReady,
  ServerUnavailable,
  syncPrediction,
} from "./predictions.js";

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

/** Backoff of a run that waits for its server (busy, not ready): 100 ms doubling to 2 s. */
const nextWait = (wait: number) => Math.min(wait * 2, 2_000);

/** Why a watch stops when the prediction has ended (given: abort() would build a DOMException per run). */
const WATCH_OVER = new Error("the prediction's watch is over");

/**
 * The prediction's end from `work` (the webhook's wait, or the synchronous request) while checking
 * that the server is alive; throws ServerUnavailable if it dies (and aborts the work).
 */
async function watched<T>(
  s: CogRunnerSettings,
  server: string,
  signal: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const watchdog = (async () => {
    let misses = 0;
    while (!both.aborted) {
      await abortableDelay(s.health_interval_ms, both).catch(() => {});
      if (both.aborted) return;
      // Any 200 (BUSY, even STARTING after a restart) says the server is there; only silence counts.
      const answer = await probeServer(server, "health-check", s.request_timeout_ms);
      misses = answer?.status === 200 ? 0 : misses + 1;
      if (misses >= 2) return "lost" as const;
    }
  })();
  const done = work(both);
  // Once the watchdog has won, the work's own failure (aborted with it) is nobody's.
  done.catch(() => {});
  try {
    const outcome = await Promise.race([done, watchdog]);
    if (outcome === "lost") throw new ServerUnavailable(`${server} stopped answering during the prediction`);
    signal.throwIfAborted();
    return outcome as T;
  } finally {
    stop.abort(WATCH_OVER);
  }
}

/** A free slot's server for a run whose server failed (or that has none), waiting while none is free. */
async function anotherServer(
  deps: CogRunnerDeps,
  s: CogRunnerSettings,
  runId: string,
  avoid: Set<string>,
  signal: AbortSignal,
): Promise<string> {
  // Once every server has failed, any may be tried again.
  const skip = avoid.size < s.servers.length ? [...avoid] : [];
  for (let wait = 100; ; wait = nextWait(wait)) {
    const slot = await deps.slots.relocate(runId, skip);
    const server = slot && serverOfSlot(slot);
    if (server) return server;
    await abortableDelay(wait, signal);
  }
}

/** One run's prediction from its first request to its end, across servers. */
interface Attempt {
  s: CogRunnerSettings;
  id: string;
  input: Record<string, unknown>;
  signal: AbortSignal;
  /** The server of the run's leased slot (null: none leased). */
  slotServer: string | null;
  /** Where an earlier attempt left the prediction running (re-attached to, not started again). */
  runningOn: string | null;
  failed: Set<string>;
  dispatches: number;
  wait: number;
  /** A synchronous prediction's first request on the slot's server: begin()'s if it sent one. */
  first?: (signal: AbortSignal) => Promise<CogPrediction | "busy">;
}

/**
 * A run taken over after a crash may find its prediction finished, or running somewhere. Its
 * prediction may have ended while its result is still on the way (Cog retries the webhook; the
 * receiver it reached may have been the worker that died). Cog forgets a finished prediction, so
 * a PUT now would run the model a second time: the result gets a moment to arrive first.
 */
async function earlierResult(
  deps: CogRunnerDeps,
  a: Attempt,
  server: string | null,
): Promise<CogPrediction | null> {
  const kept = await deps.results.get(a.id);
  if (kept) return kept;
  // A limit whose timer holds its signal (core's timeLimit): nothing but a collected signal could
  // keep this wait open otherwise.
  const arrived = await withTimeLimit(TAKEOVER_RESULT_GRACE_MS, [a.signal], (limited) =>
    deps.results.wait(a.id, limited),
  );
  if (a.signal.aborted) {
    if (server) await cancelPrediction(a.s, server, a.id);
    throw a.signal.reason;
  }
  return arrived;
}

/** The server is busy (409): a pause before the same request again. */
async function busy(log: Log, a: Attempt, server: string): Promise<null> {
  log("info", "cog server busy", { server });
  await abortableDelay(a.wait, a.signal);
  a.wait = nextWait(a.wait);
  return null;
}

/** A synchronous prediction on `server`, answered at its end; null when the server is busy. */
async function predictSync(
  deps: CogRunnerDeps,
  log: Log,
  a: Attempt,
  server: string,
): Promise<CogPrediction | null> {
  const first = server === a.slotServer ? a.first : undefined;
  a.first = undefined;
  const answer = await watched(a.s, server, a.signal, (signal) =>
    first ? first(signal) : syncPrediction(deps, server, a.id, a.input, signal),
  );
  return answer === "busy" ? busy(log, a, server) : answer;
}

/** Sends the prediction to `server` (unless sent already) and waits for it; null when the server is busy. */
async function predictOn(
  deps: CogRunnerDeps,
  log: Log,
  a: Attempt,
  server: string,
  sent: boolean,
): Promise<CogPrediction | null> {
  if (a.s.predictions === "sync") return predictSync(deps, log, a, server);
  const awaitResult = () => watched(a.s, server, a.signal, (signal) => deps.results.wait(a.id, signal));
  if (sent) {
    log("debug", "cog prediction continued", { server, prediction_id: a.id });
    return awaitResult();
  }
  // A server other than the slot's is recorded before the PUT: a worker that dies once the
  // prediction has started, even before it hears back, leaves the next one a server to re-attach
  // to rather than a second start. (The slot's server is in the job already.)
  if (server !== a.slotServer) await deps.results.setServer(a.id, server);
  if (!(await sendPrediction(deps, a.s, server, a.id, a.input))) return busy(log, a, server);
  const reattached = a.runningOn === server;
  log(reattached ? "info" : "debug", reattached ? "cog prediction re-attached" : "cog prediction started", {
    server,
    prediction_id: a.id,
  });
  return awaitResult();
}

/** The server to try next after `server` failed the attempt with `error`; rethrows what is not the server's fault. */
async function afterFailure(
  deps: CogRunnerDeps,
  log: Log,
  a: Attempt,
  server: string,
  error: unknown,
): Promise<string> {
  if (a.signal.aborted) {
    await cancelPrediction(a.s, server, a.id);
    throw a.signal.reason;
  }
  if (error instanceof ServerNotReady) {
    // Not the run's fault, and no dispatch attempt spent: a free slot on another server if there
    // is one now, else this server again after a pause (its health check takes its slots away
    // meanwhile, and gives them back once it is ready).
    log("info", "cog server not ready", { server });
    const elsewhere = await deps.slots.relocate(a.id, [server]);
    const other = elsewhere && serverOfSlot(elsewhere);
    if (other && other !== server) return other;
    await abortableDelay(a.wait, a.signal);
    a.wait = nextWait(a.wait);
    return server;
  }
  if (!(error instanceof ServerUnavailable)) throw error;
  log("info", "cog server unavailable", { server, error: error.message });
  a.failed.add(server);
  if (a.s.predictions === "async") await deps.results.setServer(a.id, null);
  if (++a.dispatches >= a.s.dispatch_attempts)
    throw new RunnerError("MODEL_ERROR", `No Cog server could complete the prediction (${error.message}).`);
  return anotherServer(deps, a.s, a.id, a.failed, a.signal);
}

/** The prediction's end, from the first server tried to the one that completed it. */
async function predict(
  deps: CogRunnerDeps,
  log: Log,
  a: Attempt,
  first: string | null,
  begun: boolean,
): Promise<CogPrediction> {
  let server = first ?? (await anotherServer(deps, a.s, a.id, a.failed, a.signal));
  // Sent already (begin): the first turn waits for it rather than sending it again.
  let sent = server === a.slotServer && begun;
  for (;;) {
    try {
      const prediction = await predictOn(deps, log, a, server, sent);
      if (prediction) return prediction;
    } catch (error) {
      server = await afterFailure(deps, log, a, server, error);
    }
    sent = false;
  }
}

type Log = NonNullable<CogRunnerDeps["log"]>;

/**
 * Runs a model on Cog servers. The scheduler has leased the run a slot on one of them (the run
 * waited QUEUED until then), so a prediction is sent only where there is room, with the run's id
 * as the prediction's. A synchronous prediction (the model's `predictions`, predictions.ts) is
 * answered at its end on the request that sent it, from the worker that leased the slot; a run
 * taken over after a crash sends it again. An asynchronous one is a PUT with Prefer:
 * respond-async: idempotent, so a retried job re-attaches to a running prediction instead of
 * starting the model twice; the completed prediction comes back through the webhook, whose
 * receiver gives the slot back at once. Either way the runner gives the slot back (idempotent)
 * before copying the outputs. A 409 means the server still runs something it was given before (a
 * lease that lapsed, a prediction being canceled): the request is repeated with backoff. A server
 * that stops answering mid-run costs one dispatch attempt, and the run moves to a free slot on
 * another server.
 */
export function createCogRunner(deps: CogRunnerDeps): Runner {
  const log: Log = deps.log ?? (() => {});
  // Synchronous predictions sent by begin(), answered once they end, for their runs to claim.
  const early = new EarlyRequests<CogPrediction | "busy">();
  /** Gives the run's slot back (once: the worker ignores a second release; failing is harmless, it gives it back again when the run ends). */
  const freeSlot = (runId: string) =>
    deps.slots
      .release(runId)
      .catch((error: unknown) => log("info", "cog slot release failed", { error: (error as Error).message }));
  return {
    async begin({ runId, input, settings, slot }) {
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind !== "cog" || !server) return false;
      const input_ = mapCogInput(input, settings.input_map, settings.loras);
      if (settings.predictions === "sync") {
        early.send(runId, async (signal) => {
          const answer = await syncPrediction(deps, server, runId, input_, signal);
          // The server is free once it has answered: its next run goes there now, not once this
          // run's start (which may wait for company: a batch item's) lets run() read the answer.
          if (answer !== "busy") void freeSlot(runId);
          return answer;
        });
        return true;
      }
      const sent = await sendPrediction(deps, settings, server, runId, input_).catch(() => false);
      if (sent) log("debug", "cog prediction started", { server, prediction_id: runId, early: true });
      return sent;
    },

    async abandon({ runId, settings, slot }) {
      early.claim(runId)?.controller.abort(new Error("the run needs no execution"));
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind === "cog" && server) await cancelPrediction(settings, server, runId);
    },

    async run({ runId, input, settings, signal, outputs, slot, fresh, begun }) {
      if (settings.kind !== "cog") throw new RunnerError("INTERNAL_ERROR", "not a cog model");
      const slotServer = slot ? serverOfSlot(slot) : null;
      const sync = settings.predictions === "sync";
      // Where an earlier asynchronous attempt sent it: a server it moved to is recorded, else it
      // is its slot's. (A synchronous one died with its worker's connection.)
      const runningOn = fresh || sync ? null : ((await deps.results.serverOf(runId)) ?? slotServer);
      const a: Attempt = {
        s: settings,
        id: runId,
        input: mapCogInput(input, settings.input_map, settings.loras),
        signal,
        slotServer,
        runningOn,
        failed: new Set(),
        dispatches: 0,
        wait: 100,
        ...(sync &&
          slotServer && {
            first: (signal: AbortSignal) =>
              early.first({ runId, signal, fresh, begun }, () =>
                syncPrediction(deps, slotServer, runId, a.input, signal),
              ),
          }),
      };
      const server = runningOn ?? slotServer;
      const prediction =
        (fresh || sync ? null : await earlierResult(deps, a, server)) ??
        (await predict(deps, log, a, server, !sync && (await (begun ?? false))));
      // The server is free: the next run goes there while this one's outputs are copied.
      await freeSlot(runId);
      if (!COG_TERMINAL.has(prediction.status))
        throw new RunnerError("MODEL_ERROR", `unexpected prediction status ${prediction.status}`);
      if (prediction.status === "failed")
        throw new RunnerError("MODEL_ERROR", prediction.error || "The model failed.");
      if (prediction.status === "canceled")
        throw new RunnerCanceled("The model server canceled the prediction.");
      const urls = await copyOutputs(
        prediction.output,
        outputs,
        signal,
        cogFetchPolicy(settings.servers, deps),
      );
      return { output: outputOfKind(settings.output, urls) };
    },
  };
}
