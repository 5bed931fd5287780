import { overdueRuns, queuedRunsBefore, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import { enqueueRun, publishCancel, type RunsQueue } from "@svc/queue";
import { settleAndNotify } from "./executeRun.js";
import type { Redis } from "ioredis";

export interface SweepDeps {
  db: Db;
  queue: RunsQueue;
  redis: Redis;
  prefix: string;
  logger: Logger;
  queuedAfterMs: number;
  enqueueDeliveries(ids: readonly string[]): Promise<void>;
}

/**
 * Makes "Redis was down for a minute" and "a worker vanished" non-events. Idempotent, so every
 * worker replica may run it: the same job id cannot be added twice, and settlement is conditional.
 * 1. QUEUED runs with no job (enqueue failed after commit, Redis lost data) are enqueued again;
 *    a job that failed for good while its run is still QUEUED is retried.
 * 2. EXECUTING runs past their deadline end FAILED/TIMEOUT, and any worker still on them is told.
 */
export async function sweepRuns(deps: SweepDeps): Promise<{ enqueued: number; timedOut: number }> {
  let enqueued = 0;
  let timedOut = 0;
  for (const { id } of await queuedRunsBefore(deps.db, new Date(Date.now() - deps.queuedAfterMs))) {
    const job = await deps.queue.getJob(id);
    if (!job) {
      await enqueueRun(deps.queue, id);
      enqueued++;
    } else if (await job.isFailed()) {
      await job.retry();
      enqueued++;
    }
  }
  for (const { id } of await overdueRuns(deps.db, new Date())) {
    const settled = await settleAndNotify(deps, id, ["EXECUTING"], {
      to: "FAILED",
      errorCode: "TIMEOUT",
      errorMessage: "The run exceeded its execution timeout.",
    });
    if (settled) {
      timedOut++;
      await publishCancel(deps.redis, deps.prefix, id).catch(() => {});
    }
  }
  if (enqueued || timedOut) deps.logger.info("sweep", { enqueued, timed_out: timedOut });
  return { enqueued, timedOut };
}
