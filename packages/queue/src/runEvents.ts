// Runs' events in Redis: each run's events in a capped stream of its own (what Last-Event-ID
// resumes from), announced on one channel that every API process subscribes to once; the queued
// runs in sorted sets by creation time (a run's queue position is one ZRANK); the recent run times
// and the live workers (the start estimate). One script call records a whole batch of events.
import type { Redis } from "ioredis";
import {
  estimateStartMs,
  median,
  statusRank,
  type QueueSnapshot,
  type RecordedEvent,
  type RunEvent,
} from "@svc/core";

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

// The key names, once: keys() for the code here, the Lua script builds the same from the prefix.
const NAMES = {
  channel: ":run-events",
  stream: ":run-events:",
  queued: ":queued",
  runTimes: ":run-times",
  workers: ":workers",
} as const;

const keys = (prefix: string) => ({
  channel: prefix + NAMES.channel,
  stream: (runId: string) => prefix + NAMES.stream + runId,
  queued: prefix + NAMES.queued,
  queuedOf: (modelId: string) => `${prefix}${NAMES.queued}:${modelId}`,
  runTimes: prefix + NAMES.runTimes,
  runTimesOf: (modelId: string) => `${prefix}${NAMES.runTimes}:${modelId}`,
  workers: prefix + NAMES.workers,
});

/** Recent run times kept per model, and for all models together. */
const RUN_TIMES_PER_MODEL = 100;
const RUN_TIMES_ALL = 200;
const EVENTS_PER_RUN = 1_000;

// A QUEUED event joins the queue only when it is the run's first event: if the run's start was
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
    if redis.call('XLEN', stream) == 1 then
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

type WithRecord = Redis & {
  svcRecordRunEvents(prefix: string, activeTtl: number, endedTtl: number, events: string): Promise<number>;
};

function withRecord(redis: Redis): WithRecord {
  if (!("svcRecordRunEvents" in redis))
    redis.defineCommand("svcRecordRunEvents", { numberOfKeys: 0, lua: RECORD });
  return redis as WithRecord;
}

/** Records a batch of events in one round trip; the caller decides what a failure means. */
export function runEventRecorder(redis: Redis, prefix: string, settings: RunEventSettings) {
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
    await r.svcRecordRunEvents(prefix, settings.activeTtlMs, settings.endedTtlMs, JSON.stringify(batch));
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

/**
 * One subscription per process for every run's events: a listener costs a map entry, not a
 * connection. Pub/sub is at-most-once, so after a reconnect every listener is told to re-read
 * what it may have missed.
 */
export function createRunEventHub(
  redis: Redis,
  prefix: string,
  onError: (error: unknown) => void,
): RunEventHub {
  const k = keys(prefix);
  const listeners = new Map<string, Set<(m: HubMessage) => void>>();
  let count = 0;
  const subscriber = redis.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
  subscriber.on("error", () => {});
  let subscribedOnce = false;
  subscriber.on("ready", () => {
    if (subscribedOnce) for (const set of listeners.values()) for (const l of [...set]) l("resync");
    subscribedOnce = true;
  });
  void subscriber.subscribe(k.channel).catch(onError);
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
      return () => {
        if (!set.delete(listener)) return;
        count--;
        if (!set.size) listeners.delete(runId);
      };
    },
    async history(runId, afterId) {
      const entries = await redis.xrange(k.stream(runId), afterId ? `(${afterId}` : "-", "+");
      return entries.map(([id, fields]) => ({ id, event: parseEvent(fields[1]!) }));
    },
    listeners: () => count,
    async close() {
      listeners.clear();
      count = 0;
      // QUIT waits for a connection that may never come (Redis away): then just hang up.
      if (subscriber.status === "ready") await subscriber.quit().catch(() => subscriber.disconnect());
      else subscriber.disconnect();
    },
  };
}

/** Where a queued run stands; null when it is not in the queue's index (see the sweeper). */
export interface RunsAhead {
  /** Queued runs of its model created before it, and of all models. */
  ofModel: number;
  ofAll: number;
}

export interface QueueIndex {
  /** The run's place, re-adding a queued run missing from the index (its creation's events were lost). */
  ahead(run: { id: string; modelId: string; createdAt: Date }): Promise<RunsAhead>;
  /** Capacity, executing runs and mean run time, cached for a second. */
  snapshot(): Promise<QueueSnapshot>;
  /** Milliseconds from now until a run with `ahead` runs before it should start, or null. */
  estimate(ahead: number): Promise<number | null>;
  model(modelId: string): Promise<{ queueLength: number; runTimeP50Ms: number | null }>;
}

/** Live workers and their run slots, from their heartbeats. */
async function liveCapacity(redis: Redis, workersKey: string, now: number): Promise<number> {
  let capacity = 0;
  for (const value of Object.values(await redis.hgetall(workersKey))) {
    const [slots, expires] = value.split(":").map(Number);
    if (expires! > now) capacity += slots!;
  }
  return capacity;
}

const numbers = (values: string[]) => values.map(Number).filter(Number.isFinite);

export function queueIndex(redis: Redis, prefix: string, executing: () => Promise<number>): QueueIndex {
  const k = keys(prefix);
  let cached: { at: number; value: Promise<QueueSnapshot> } | undefined;
  const snapshot = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 1_000) {
      const value = (async () => {
        const [capacity, busy, times] = await Promise.all([
          liveCapacity(redis, k.workers, now),
          executing(),
          redis.lrange(k.runTimes, 0, -1),
        ]);
        const recent = numbers(times);
        return {
          capacity,
          executing: busy,
          meanRunMs: recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : null,
        };
      })();
      cached = { at: now, value };
      value.catch(() => (cached = undefined));
    }
    return cached.value;
  };
  return {
    async ahead(run) {
      const rank = async () => {
        const answers = await redis
          .multi()
          .zrank(k.queuedOf(run.modelId), run.id)
          .zrank(k.queued, run.id)
          .exec();
        return answers!.map(([error, value]) => {
          if (error) throw error;
          return value as number | null;
        });
      };
      let [ofModel, ofAll] = await rank();
      if (ofModel === null || ofAll === null) {
        const score = run.createdAt.getTime();
        await redis
          .multi()
          .zadd(k.queuedOf(run.modelId), "NX", score, run.id)
          .zadd(k.queued, "NX", score, run.id)
          .exec();
        [ofModel, ofAll] = await rank();
      }
      return { ofModel: ofModel ?? 0, ofAll: ofAll ?? 0 };
    },
    snapshot,
    async estimate(ahead) {
      return estimateStartMs(ahead, await snapshot());
    },
    async model(modelId) {
      const [[, length], [, times]] = (await redis
        .multi()
        .zcard(k.queuedOf(modelId))
        .lrange(k.runTimesOf(modelId), 0, -1)
        .exec())! as [[unknown, number], [unknown, string[]]];
      return { queueLength: length, runTimeP50Ms: median(numbers(times)) };
    },
  };
}

/**
 * A worker's heartbeat: its run slots, valid for three beats. Returns the stop function, which
 * removes the worker at once (a graceful stop frees its capacity before its entry would expire).
 */
export function startWorkerHeartbeat(
  redis: Redis,
  prefix: string,
  workerId: string,
  slots: number,
  everyMs: number,
  onError: (error: unknown) => void,
): () => Promise<void> {
  const k = keys(prefix);
  const beat = async () => {
    const now = Date.now();
    // Entries of workers that vanished are cleared by whoever beats next.
    const all = await redis.hgetall(k.workers);
    const gone = Object.entries(all)
      .filter(([, v]) => Number(v.split(":")[1]) <= now)
      .map(([id]) => id);
    const m = redis.multi().hset(k.workers, workerId, `${slots}:${now + 3 * everyMs}`);
    if (gone.length) m.hdel(k.workers, ...gone);
    await m.exec();
  };
  const timer = setInterval(() => void beat().catch(onError), everyMs);
  void beat().catch(onError);
  return async () => {
    clearInterval(timer);
    await redis.hdel(k.workers, workerId).catch(onError);
  };
}

/**
 * Drops from the queue's index the runs at its head that are no longer queued (their start was
 * recorded while Redis was away); `stillQueued` answers from the database. Returns how many.
 */
export async function trimQueueIndex(
  redis: Redis,
  prefix: string,
  stillQueued: (ids: string[]) => Promise<Map<string, { queued: boolean; modelId: string }>>,
  head = 200,
): Promise<number> {
  const k = keys(prefix);
  const ids = await redis.zrange(k.queued, 0, head - 1);
  if (!ids.length) return 0;
  const known = await stillQueued(ids);
  const stale = ids.filter((id) => !known.get(id)?.queued);
  if (!stale.length) return 0;
  const m = redis.multi().zrem(k.queued, ...stale);
  for (const id of stale) {
    const modelId = known.get(id)?.modelId;
    if (modelId) m.zrem(k.queuedOf(modelId), id);
  }
  await m.exec();
  return stale.length;
}
