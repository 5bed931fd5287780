import type { RedisClient } from "@svc/queue";
import type { RunNotes } from "@svc/runners";

/** A day: longer than any run executes, so that a run taken over finds its note. */
const KEEP_SECONDS = 24 * 3_600;

/** RunNotes in Redis: a key per run and note, shared by every worker, gone after a day. */
export function redisRunNotes(redis: RedisClient, prefix: string): RunNotes {
  const key = (runId: string, what: string) => `${prefix}:run-note:${what}:${runId}`;
  return {
    get: (runId, what) => redis.get(key(runId, what)),
    async set(runId, what, value) {
      await redis.set(key(runId, what), value, "EX", KEEP_SECONDS);
    },
  };
}
