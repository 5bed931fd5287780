import type { RedisClient } from "@svc/queue";
import { cogPredictionSchema, type CogPrediction } from "@svc/core";
import { COG_DONE_CHANNEL } from "@svc/queue";
import type { CogResults } from "@svc/runners";

const KEEP_SECONDS = 3_600;

/**
 * Completed Cog predictions in Redis: stored under a key for an hour (a job retried after a crash
 * finds a prediction that finished meanwhile) and announced on a channel that every worker's
 * subscriber hears (the worker waiting for it wakes at once, whichever replica Cog called).
 * Pub/sub delivers at most once (a subscriber reconnecting misses what was published meanwhile),
 * so a waiter also reads the stored result every pollMs.
 */
export function redisCogResults(redis: RedisClient, prefix: string, pollMs = 1_000) {
  const waiters = new Map<string, Set<(p: CogPrediction) => void>>();
  const resultKey = (id: string) => `${prefix}:cog:result:${id}`;
  const serverKey = (id: string) => `${prefix}:cog:server:${id}`;

  const get = async (id: string): Promise<CogPrediction | null> => {
    const text = await redis.get(resultKey(id));
    return text ? cogPredictionSchema.parse(JSON.parse(text)) : null;
  };

  const results: CogResults & {
    store(id: string, prediction: CogPrediction): Promise<void>;
    /** Feed of the channel's messages (prediction ids), from the worker's subscriber. */
    announced(id: string): Promise<void>;
  } = {
    get,
    wait(id, signal) {
      return new Promise((resolve) => {
        const check = () =>
          get(id).then(
            (p) => p && done(p),
            () => {},
          );
        const poll = setInterval(check, pollMs);
        const done = (p: CogPrediction | null) => {
          clearInterval(poll);
          waiters.get(id)?.delete(onResult);
          if (!waiters.get(id)?.size) waiters.delete(id);
          signal.removeEventListener("abort", onAbort);
          resolve(p);
        };
        const onResult = (p: CogPrediction) => done(p);
        const onAbort = () => done(null);
        if (!waiters.has(id)) waiters.set(id, new Set());
        waiters.get(id)!.add(onResult);
        signal.addEventListener("abort", onAbort, { once: true });
        // Registered first, then checked: a result stored in between is not missed.
        void check();
      });
    },
    async serverOf(id) {
      return redis.get(serverKey(id));
    },
    async setServer(id, server) {
      if (server) await redis.set(serverKey(id), server, "EX", 24 * KEEP_SECONDS);
      else await redis.del(serverKey(id));
    },
    async store(id, prediction) {
      // Stored and announced in one round trip; a waiter in this process (Cog called the worker
      // that sent the prediction, the usual case) is handed it at once, without reading it back.
      await redis
        .multi()
        .set(resultKey(id), JSON.stringify(prediction), "EX", KEEP_SECONDS)
        .publish(COG_DONE_CHANNEL.name(prefix), id)
        .exec()
        .then((replies) => {
          const failed = replies?.find(([error]) => error)?.[0];
          if (failed) throw failed;
        });
      for (const wake of [...(waiters.get(id) ?? [])]) wake(prediction);
    },
    async announced(id) {
      if (!waiters.has(id)) return;
      const prediction = await get(id);
      if (prediction) for (const wake of [...(waiters.get(id) ?? [])]) wake(prediction);
    },
  };
  return results;
}

export type RedisCogResults = ReturnType<typeof redisCogResults>;
