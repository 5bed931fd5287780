// Runs' events in Redis: each run's events in a capped stream of its own (what Last-Event-ID
// resumes from), announced on one channel that every API process subscribes to once. The same
// script keeps the index of waiting runs of unlimited models (queueIndex.ts) and the models'
// recent run times. One script call records a whole batch of events.
import { duplicateAs, type RedisClient } from "./redis.js";
import { statusRank, type RecordedEvent, type RunEvent } from "@svc/core";
import { keys, NAMES } from "./runEventKeys.js";

export interface StoredEvent {
  /** The stream entry's id ("<ms>-<seq>"), the SSE event id. */
  id: string;
  event: RunEvent;
}

export interface RunEventSettings {
  /** How long an active run's events are kept after its last event, and an ended run's. */
  activeTtlMs: number;
  endedTtlMs: number;
}

/** Recent run times kept per model, and for all models together. */
const RUN_TIMES_PER_MODEL = 100;
const RUN_TIMES_ALL = 200;
const EVENTS_PER_RUN = 1_000;

// A QUEUED event of an unlimited model (with its queue time) joins the queue index only when it is
// the run's first event: if the run's start was
// recorded before it (two processes record, in any order), the run is no longer waiting.
const RECORD = `
local prefix, activeTtl, endedTtl = ARGV[1], ARGV[2], ARGV[3]
local events = cjson.decode(ARGV[4])
local queued, runTimes = prefix .. '${NAMES.queued}', prefix .. '${NAMES.runTimes}'
local out = {}
for _, e in ipairs(events) do
  local stream = prefix .. '${NAMES.stream}' .. e.r
  local id = redis.call('XADD', stream, 'MAXLEN', '~', ${EVENTS_PER_RUN}, '*', 'e', e.d)
  redis.call('PEXPIRE', stream, e.x == 1 and endedTtl or activeTtl)
  if e.s == 'QUEUED' then
    if e.q and redis.call('XLEN', stream) == 1 then
      redis.call('ZADD', queued .. ':' .. e.m, e.q, e.r)
      redis.call('ZADD', queued, e.q, e.r)
    end
  elseif e.s then
    redis.call('ZREM', queued .. ':' .. e.m, e.r)
    redis.call('ZREM', queued, e.r)
  end
  if e.t then
    redis.call('LPUSH', runTimes .. ':' .. e.m, e.t)
    redis.call('LTRIM', runTimes .. ':' .. e.m, 0, ${RUN_TIMES_PER_MODEL - 1})
    redis.call('LPUSH', runTimes, e.t)
    redis.call('LTRIM', runTimes, 0, ${RUN_TIMES_ALL - 1})
  end
  out[#out + 1] = { r = e.r, i = id, d = e.d }
end
redis.call('PUBLISH', prefix .. '${NAMES.channel}', cjson.encode(out))
return #out`;

type WithRecord = RedisClient & {
  svcRecordRunEvents(
    route: string,
    prefix: string,
    activeTtl: number,
    endedTtl: number,
    events: string,
  ): Promise<number>;
};

function withRecord(redis: RedisClient): WithRecord {
  if (!("svcRecordRunEvents" in redis))
    // KEYS[1] (the channel) only routes the script on Redis Cluster: every key it touches shares
    // the prefix's hash tag. The script reads the prefix from ARGV[1].
    redis.defineCommand("svcRecordRunEvents", { numberOfKeys: 1, lua: RECORD });
  return redis as WithRecord;
}

/** Records a batch of events in one round trip; the caller decides what a failure means. */
export function runEventRecorder(redis: RedisClient, prefix: string, settings: RunEventSettings) {
  const r = withRecord(redis);
  return async (events: readonly RecordedEvent[]): Promise<void> => {
    if (!events.length) return;
    const batch = events.map((e) => ({
      r: e.runId,
      m: e.modelId,
      d: JSON.stringify(e.event),
      ...(e.event.type === "status" && {
        s: e.event.status,
        x: statusRank(e.event.status) === 2 ? 1 : 0,
      }),
      ...(e.queuedAt !== undefined && { q: e.queuedAt }),
      ...(e.runMs !== undefined && { t: Math.max(0, Math.round(e.runMs)) }),
    }));
    await r.svcRecordRunEvents(
      keys(prefix).channel,
      prefix,
      settings.activeTtlMs,
      settings.endedTtlMs,
      JSON.stringify(batch),
    );
  };
}

export type RecordRunEvents = ReturnType<typeof runEventRecorder>;

/** Stream ids compare by their time, then their sequence number. */
export function streamIdAfter(a: string, b: string): boolean {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint];
  return am > bm || (am === bm && as > bs);
}

export const isStreamId = (id: string) => /^\d{1,20}-\d{1,20}$/.test(id);

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
