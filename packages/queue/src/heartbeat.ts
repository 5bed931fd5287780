// Workers' heartbeats: each live worker's run slots and render threads, valid for three beats.
// The start estimate of unlimited models counts the slots; built-in models' pools the threads.
import type { RedisClient } from "./redis.js";
import { keys } from "./runEvents/keys.js";

export interface LiveWorkers {
  /** Run slots (WORKER_CONCURRENCY) and render threads of the workers alive now. */
  slots: number;
  threads: number;
}

/** The live workers' slots and threads, from their heartbeats ("slots:expires:threads"). */
export async function liveWorkers(
  redis: RedisClient,
  prefix: string,
  now = Date.now(),
): Promise<LiveWorkers> {
  const live = { slots: 0, threads: 0 };
  for (const value of Object.values(await redis.hgetall(keys(prefix).workers))) {
    const [slots, expires, threads] = value.split(":").map(Number);
    if (!(expires! > now)) continue;
    live.slots += slots || 0;
    live.threads += threads || 0;
  }
  return live;
}

/**
 * A worker's heartbeat: its run slots and render threads, valid for three beats. Returns the stop
 * function, which removes the worker at once (a graceful stop frees its capacity before its entry
 * would expire).
 */
export function startWorkerHeartbeat(
  redis: RedisClient,
  prefix: string,
  workerId: string,
  capacity: { slots: number; threads: number },
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
    const m = redis
      .multi()
      .hset(k.workers, workerId, `${capacity.slots}:${now + 3 * everyMs}:${capacity.threads}`);
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
