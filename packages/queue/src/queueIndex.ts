// The waiting runs of unlimited models (acme/echo), which start as soon as a worker is free: sorted
// by creation time (a run's place is one ZRANK), in the index the run-event script keeps. Runs of
// limited models wait in the scheduler (scheduler/), which answers for their place.
import type { RedisClient } from "./redis.js";
import { estimateStartMs, median, type QueueSnapshot } from "@svc/core";
import { liveWorkers } from "./heartbeat.js";
import { keys } from "./runEvents/keys.js";
import type { Scheduler } from "./scheduler/index.js";

/** Where a queued run stands: the runs that start before it, and in how long it should start. */
export interface RunPlace {
  ahead: number;
  waitMs: number | null;
}

/** A model's queue as GET /models/:id shows it; capacity and inFlight are null for unlimited models. */
export interface ModelQueueFigures {
  queueLength: number;
  runTimeP50Ms: number | null;
  capacity: number | null;
  inFlight: number | null;
}

export interface QueueIndex {
  /**
   * A queued run's place. A run of a limited model (`pooled`) stands where the fair policy puts it
   * in its pool's queue (a run holding a slot is next); null when the scheduler does not know it
   * (the sweeper puts it back). A run of an unlimited model stands by creation time among all
   * such runs; one missing from the index (its creation's events were lost) is added back.
   */
  place(run: { id: string; modelId: string; createdAt: Date }, pooled: boolean): Promise<RunPlace | null>;
  model(modelId: string, pooled: boolean): Promise<ModelQueueFigures>;
}

const numbers = (values: string[]) => values.map(Number).filter(Number.isFinite);

export function queueIndex(
  redis: RedisClient,
  prefix: string,
  scheduler: Scheduler,
  executing: () => Promise<number>,
): QueueIndex {
  const k = keys(prefix);
  // Unlimited models share the workers' run slots: capacity, busy slots and mean run time, cached
  // for a second.
  let cached: { at: number; value: Promise<QueueSnapshot> } | undefined;
  const snapshot = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 1_000) {
      const value = (async () => {
        const [capacity, busy, times] = await Promise.all([
          liveWorkers(redis, prefix, now).then((live) => live.slots),
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
  const runTimeP50 = async (modelId: string) =>
    median(numbers(await redis.lrange(k.runTimesOf(modelId), 0, -1)));

  async function unlimitedPlace(run: { id: string; modelId: string; createdAt: Date }): Promise<RunPlace> {
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
    // Unlimited models' runs are taken in creation order, whatever their model.
    return { ahead: ofModel ?? 0, waitMs: estimateStartMs(ofAll ?? 0, await snapshot()) };
  }

  async function poolPlace(run: { id: string; modelId: string }): Promise<RunPlace | null> {
    const pool = run.modelId;
    const [inLine, stats, p50] = await Promise.all([
      scheduler.runsBefore(pool, run.id),
      scheduler.stats(pool),
      runTimeP50(pool),
    ]);
    if (inLine === null)
      return (await scheduler.states([run.id])).get(run.id)?.slot ? { ahead: 0, waitMs: 0 } : null;
    // The slots' next runs (chosen already, out of line) start before any run in line.
    const ahead = inLine + stats.nextRuns;
    // How long a slot is held (dispatch to the prediction's end) is what frees the next one; the
    // run time also counts the settlement after it. The run time serves until runs have ended.
    return {
      ahead,
      waitMs: estimateStartMs(ahead, {
        capacity: stats.capacity,
        executing: stats.leased,
        meanRunMs: median(stats.held) ?? p50,
        busyForMs: stats.busySince.map((since) => Math.max(0, Date.now() - since)),
      }),
    };
  }

  return {
    place: (run, pooled) => (pooled ? poolPlace(run) : unlimitedPlace(run)),
    async model(modelId, pooled) {
      if (pooled) {
        const [stats, p50] = await Promise.all([scheduler.stats(modelId), runTimeP50(modelId)]);
        return {
          queueLength: stats.queued,
          runTimeP50Ms: p50,
          capacity: stats.capacity,
          inFlight: stats.leased,
        };
      }
      const [length, p50] = await Promise.all([redis.zcard(k.queuedOf(modelId)), runTimeP50(modelId)]);
      return { queueLength: length, runTimeP50Ms: p50, capacity: null, inFlight: null };
    },
  };
}

/**
 * Drops from the queue's index the runs at its head that are no longer queued (their start was
 * recorded while Redis was away); `stillQueued` answers from the database. Returns how many.
 */
export async function trimQueueIndex(
  redis: RedisClient,
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
