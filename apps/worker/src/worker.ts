import { whenRedisReady } from "@svc/queue";
import type { WorkerDeps } from "./deps.js";

export interface RunningWorker {
  /** Stops taking work, waits for running work within the grace period, closes connections. */
  close(): Promise<void>;
}

/** Waits until Postgres and Redis answer (a worker may start before them), then starts processing. */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const { db, redis, logger } = deps;
  for (let attempt = 1; ; attempt++) {
    try {
      await db.$queryRaw`SELECT 1`;
      break;
    } catch (error) {
      logger.warn("waiting for postgres", { attempt, error: (error as Error).message });
      await new Promise((r) => setTimeout(r, Math.min(attempt * 500, 5_000)));
    }
  }
  while (!(await whenRedisReady(redis, 5_000))) logger.warn("waiting for redis");
  logger.info("worker ready", {
    concurrency: deps.config.WORKER_CONCURRENCY,
    queue_prefix: deps.config.QUEUE_PREFIX,
  });

  return {
    async close() {
      await Promise.allSettled([redis.quit(), db.$disconnect()]);
    },
  };
}
