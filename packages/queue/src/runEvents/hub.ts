// One subscription per process to every run's events (recorded by recorder.ts), fanned out to the
// process's listeners: what an API process streams to its clients.
import type { RunEvent } from "@svc/core";
import { duplicateAs, type RedisClient } from "../redis.js";
import { keys } from "./keys.js";
import type { StoredEvent } from "./recorder.js";

export type HubMessage = StoredEvent | "resync";

export interface RunEventHub {
  /** Calls `listener` with each new event of the run, or "resync" after the subscription was lost. */
  listen(runId: string, listener: (message: HubMessage) => void): () => void;
  /** The run's recorded events after `afterId` (all when omitted), oldest first. */
  history(runId: string, afterId?: string): Promise<StoredEvent[]>;
  /** Open listeners, for the metrics. */
  listeners(): number;
  close(): Promise<void>;
}

const parseEvent = (text: string): RunEvent => JSON.parse(text) as RunEvent;

/** How long a process stays subscribed after its last listener left (a new one often follows). */
const DEFAULT_LINGER_MS = 30_000;

/**
 * One subscription per process for every run's events: a listener costs a map entry, not a
 * connection. It is held only while the process has listeners (and `lingerMs` after the last one
 * left): an API process that streams nothing is not woken by every event of every run. Pub/sub is
 * at-most-once, so a listener that joined before the subscription was in place, and every listener
 * after a reconnect, is told to re-read what it may have missed.
 */
export function createRunEventHub(
  redis: RedisClient,
  prefix: string,
  onError: (error: unknown) => void,
  { lingerMs = DEFAULT_LINGER_MS }: { lingerMs?: number } = {},
): RunEventHub {
  const k = keys(prefix);
  const listeners = new Map<string, Set<(m: HubMessage) => void>>();
  let count = 0;
  const subscriber = duplicateAs(redis, "worker");
  const resyncAll = () => {
    for (const set of listeners.values()) for (const l of [...set]) l("resync");
  };
  let subscribed = false;
  let lingering: NodeJS.Timeout | undefined;
  let closed = false;
  // Subscribing and unsubscribing one after the other, each step doing what is wanted by then.
  let steps: Promise<void> = Promise.resolve();
  const reconcile = () => {
    steps = steps
      .then(async () => {
        const wanted = !closed && (count > 0 || lingering !== undefined);
        if (wanted && !subscribed) {
          await subscriber.subscribe(k.channel);
          subscribed = true;
          resyncAll();
        } else if (!wanted && subscribed) {
          subscribed = false;
          await subscriber.unsubscribe(k.channel);
        }
      })
      .catch(onError);
  };
  subscriber.on("ready", () => {
    // ioredis subscribes again by itself after a reconnect; what was published meanwhile is lost.
    if (subscribed) resyncAll();
    // A subscription that failed (Redis away) is tried again once it is back.
    else if (count > 0) reconcile();
  });
  subscriber.on("message", (_channel: string, text: string) => {
    if (!count) return;
    try {
      for (const e of JSON.parse(text) as { r: string; i: string; d: string }[]) {
        const set = listeners.get(e.r);
        if (!set) continue;
        const message = { id: e.i, event: parseEvent(e.d) };
        for (const l of [...set]) l(message);
      }
    } catch (error) {
      onError(error);
    }
  });
  return {
    listen(runId, listener) {
      let set = listeners.get(runId);
      if (!set) listeners.set(runId, (set = new Set()));
      set.add(listener);
      count++;
      clearTimeout(lingering);
      lingering = undefined;
      if (!subscribed) reconcile();
      return () => {
        if (!set.delete(listener)) return;
        count--;
        if (!set.size) listeners.delete(runId);
        if (count || closed) return;
        lingering = setTimeout(() => {
          lingering = undefined;
          reconcile();
        }, lingerMs);
        lingering.unref();
      };
    },
    async history(runId, afterId) {
      const entries = await redis.xrange(k.stream(runId), afterId ? `(${afterId}` : "-", "+");
      return entries.map(([id, fields]) => ({ id, event: parseEvent(fields[1]!) }));
    },
    listeners: () => count,
    async close() {
      closed = true;
      clearTimeout(lingering);
      listeners.clear();
      count = 0;
      // QUIT waits for a connection that may never come (Redis away): then just hang up.
      if (subscriber.status === "ready") await subscriber.quit().catch(() => subscriber.disconnect());
      else subscriber.disconnect();
    },
  };
}
