import { Redis, type RedisOptions } from "ioredis";

/**
 * producer: for request paths. Commands fail at once while Redis is down (no offline queue, one
 *   retry), so an API request never hangs on Redis; callers decide what a failure means.
 * worker: for BullMQ workers and subscribers. Waits and reconnects for as long as it takes
 *   (BullMQ requires maxRetriesPerRequest: null on blocking connections).
 */
export type RedisRole = "producer" | "worker";

export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  const common: RedisOptions = {
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
  const byRole: RedisOptions =
    role === "producer"
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  const redis = new Redis(url, { ...common, ...byRole, ...extra });
  // Connection errors are reported through commands and readiness checks; without a listener
  // ioredis would print every reconnect attempt as an unhandled error event.
  redis.on("error", () => {});
  return redis;
}

/** Resolves true once the connection is ready (at once if it is), false after timeoutMs. */
export function whenRedisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on("ready", onReady);
  });
}

/** PING with a deadline that also covers a connection still being made: true when Redis answered. */
export async function pingRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  const started = Date.now();
  if (!(await whenRedisReady(redis, timeoutMs))) return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("timeout")),
          Math.max(1, timeoutMs - (Date.now() - started)),
        );
      }),
    ]);
    return answer === "PONG";
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
