// Following a run without polling: waiting requests (Prefer: wait), event streams (SSE) and a
// queued run's place. All of them hear runs' events through the process's one subscription
// (packages/queue runEvents) and read the stored run to answer, so a lost event costs a delay,
// never a wrong answer.
import type { Request, Response } from "express";
import {
  isTerminal,
  poolOf,
  presentRun,
  type RunnerSettings,
  statusRank,
  timeLimit,
  type QueuePlace,
  type RunEvent,
  type RunRecord,
} from "@svc/core";
import type { Logger } from "@svc/logger";
import { isStreamId, streamIdAfter, type QueueIndex, type RunEventHub, type StoredEvent } from "@svc/queue";
import type { OutputUrls } from "@svc/storage";
import { whenClientGone } from "../http/clientGone.js";

export interface Realtime {
  hub: RunEventHub;
  queue: QueueIndex;
  /** A run's model, to tell whether it waits for limited capacity. */
  models: (id: string) => Promise<{ runner: RunnerSettings } | null>;
  /** Draining: waiting requests answer now and streams end (clients resume elsewhere). */
  closing: AbortSignal;
  heartbeatMs: number;
  /** Ended runs' output URLs as clients get them (signed afresh at each read, when configured). */
  urls: OutputUrls;
  logger: Logger;
}

/** A queued run's place, or null when the queue's index cannot be read now (Redis away). */
export async function placeOf(rt: Realtime, run: RunRecord): Promise<QueuePlace | null> {
  if (run.status !== "QUEUED") return null;
  try {
    const model = await rt.models(run.modelId);
    const pooled = model ? poolOf(model.runner) !== null : false;
    const place = await rt.queue.place(run, pooled);
    if (!place) return null;
    return {
      position: place.ahead + 1,
      estimatedStartAt: place.waitMs === null ? null : new Date(Date.now() + place.waitMs),
    };
  } catch (error) {
    rt.logger.warn("queue position unavailable", { run_id: run.id, error: (error as Error).message });
    return null;
  }
}

/** The run's view for a status read, with its place when it is queued. */
export async function runView(rt: Realtime, run: RunRecord) {
  return rt.urls.resolve(presentRun(run, await placeOf(rt, run)));
}

/**
 * Resolves with the stored run once it has ended, or after `seconds` (or when the client leaves, or
 * the process drains) with its state then. The run is read after subscribing, so an end that
 * happened in between is not missed.
 */
export async function waitForEnd<R extends RunRecord>(
  rt: Realtime,
  runId: string,
  read: () => Promise<R | null>,
  seconds: number,
  gone: AbortSignal,
): Promise<R | null> {
  let wake = () => {};
  const stop = rt.hub.listen(runId, (m) => {
    // After a lost subscription the stored state is read again: an end may have been missed.
    if (m === "resync" || (m.event.type === "status" && isTerminal(m.event.status))) wake();
  });
  const limit = timeLimit(seconds * 1_000, gone, rt.closing);
  const signals = limit.signal;
  const onAbort = () => wake();
  signals.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const run = await read();
      if (!run || isTerminal(run.status) || signals.aborted) return run;
      await woken;
    }
  } finally {
    stop();
    signals.removeEventListener("abort", onAbort);
    limit.clear();
  }
}

/**
 * An event stream's start (its headers, the client's retry delay) and its writers, each of which
 * checks that the stream is still open: handlers resume after awaits, by which time the client
 * may have gone (a write after the end would be an error event). null for HEAD: the headers alone.
 */
function openEventStream(req: Request, res: Response, ended: () => boolean) {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  if (req.method === "HEAD") return void res.end();
  const write = (text: string) => {
    if (!ended() && !res.writableEnded) res.write(text);
  };
  const sse = (event: string, data: unknown, id?: string) =>
    write(`${id ? `id: ${id}\n` : ""}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  write(`retry: 1000\n\n`);
  return { write, sse };
}

/** Runs the work given to it one piece at a time, in the order given; a failure goes to `failed`. */
function inOrder(failed: (error: unknown) => void) {
  let chain: Promise<unknown> = Promise.resolve();
  return (work: () => Promise<unknown>) => {
    chain = chain.then(work).catch(failed);
  };
}

/**
 * GET /runs/{id}/events: the run's recorded events after Last-Event-ID (all of them without it),
 * then live ones, each status event carrying the run's view (a queued run's place, an ended run's
 * full view), until the run has ended. The stored state is re-read at the start and at every
 * heartbeat, so an event lost on the way (or expired) is made up from it. The stream also ends
 * when `stop` aborts (its key revoked, its session ended).
 */
export function streamRunEvents(
  rt: Realtime,
  req: Request,
  res: Response,
  run: RunRecord,
  read: () => Promise<RunRecord | null>,
  stop: AbortSignal,
) {
  const lastEventId = req.get("last-event-id");
  let last = lastEventId && isStreamId(lastEventId) ? lastEventId : undefined;
  let rank = -1;
  let position: number | undefined;
  let ended = false;
  const stream = openEventStream(req, res, () => ended);
  if (!stream) return;
  const { write, sse } = stream;

  const finish = () => {
    if (ended) return;
    ended = true;
    unlisten();
    clearInterval(heartbeat);
    rt.closing.removeEventListener("abort", finish);
    stop.removeEventListener("abort", finish);
    res.end();
  };

  const status = async (view: { status: RunRecord["status"] } & Record<string, unknown>, id?: string) => {
    if (!isTerminal(view.status)) return sse("status", view, id);
    sse("status", await rt.urls.resolve(view), id);
    finish();
  };

  async function handle(stored: StoredEvent | { id?: undefined; event: RunEvent }) {
    if (ended) return;
    if (stored.id) {
      if (last && !streamIdAfter(stored.id, last)) return;
      last = stored.id;
    }
    const { event } = stored;
    if (event.type === "progress") {
      if (rank < 2) sse("progress", { run_id: run.id, at: event.at, ...event.data }, stored.id);
      return;
    }
    const r = statusRank(event.status);
    if (r < rank || (r === rank && r !== 0)) return;
    rank = r;
    if (r === 2) {
      // The event carries the ended run's view unless its output is large.
      if (event.view) return status(event.view as { status: RunRecord["status"] }, last);
      const stored = await read();
      if (stored && isTerminal(stored.status)) return status(presentRun(stored), last);
      return;
    }
    if (r === 1) {
      return status(
        { ...presentRun({ ...run, status: "EXECUTING", startedAt: new Date(event.at) }) },
        stored.id,
      );
    }
    const place = await placeOf(rt, run);
    position = place?.position;
    return status(presentRun({ ...run, status: "QUEUED" }, place), stored.id);
  }

  /**
   * Recorded events since the last one sent, then the stored state for what they cannot say: an
   * end (always), or, at a periodic check or when no event was recorded at all, a start whose
   * event is overdue. (At a stream's start the recorded events lag the stored state by a moment.)
   */
  async function catchUp(periodic: boolean) {
    let recorded = 0;
    try {
      // A resumed stream first learns how far the client got from the events up to its id.
      const resuming = !periodic && last !== undefined;
      for (const stored of await rt.hub.history(run.id, resuming ? undefined : last)) {
        recorded++;
        if (resuming && !streamIdAfter(stored.id, last!)) {
          if (stored.event.type === "status") rank = Math.max(rank, statusRank(stored.event.status));
        } else await handle(stored);
      }
    } catch (error) {
      rt.logger.warn("run events unavailable; the stored state answers", {
        run_id: run.id,
        error: (error as Error).message,
      });
    }
    if (ended) return;
    const now = await read();
    if (!now) return finish();
    const behind =
      isTerminal(now.status) ||
      ((periodic || (!recorded && last === undefined)) && statusRank(now.status) > rank);
    if (behind) {
      const at = (now.startedAt ?? now.createdAt).toISOString();
      return handle({ event: { type: "status", status: now.status, at } });
    }
    if (periodic && now.status === "QUEUED") {
      const place = await placeOf(rt, now);
      if (place && place.position !== position) {
        position = place.position;
        await status(presentRun(now, place));
      }
    }
  }

  // One handler at a time, in arrival order: live events wait behind the catch-up.
  const enqueue = inOrder((error) => {
    rt.logger.warn("run event stream failed", { run_id: run.id, error: (error as Error).message });
    finish();
  });
  const unlisten = rt.hub.listen(run.id, (m) => enqueue(() => (m === "resync" ? catchUp(true) : handle(m))));
  const heartbeat = setInterval(() => {
    write(": heartbeat\n\n");
    enqueue(() => catchUp(true));
  }, rt.heartbeatMs);
  rt.closing.addEventListener("abort", finish, { once: true });
  stop.addEventListener("abort", finish, { once: true });
  // The client may have left before the stream began (its handler awaited the run and a place).
  whenClientGone(res, finish);
  res.on("error", finish);
  enqueue(() => catchUp(false));
}
