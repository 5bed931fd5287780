import { overdueRuns, queuedRunsBefore, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import { enqueueRuns, publishCancel, type RunsQueue } from "@svc/queue";
import type { RunLifecycle } from "@svc/use-cases";
import type { Redis } from "ioredis";

export interface SweepDeps {
  db: Db;
  runs: RunLifecycle;
  queue: RunsQueue;
  redis: Redis;
  prefix: string;
  logger: Logger;
  queuedAfterMs: number;
}

/**
 * Makes "Redis was down for a minute" and "a worker vanished" non-events. Idempotent, so every
 * worker replica may run it: the same job id cannot be added twice, and settlement is conditional.
 * 1. QUEUED runs with no job (enqueue failed after commit, Redis lost data) are enqueued again;
 *    a job that failed for good while its run is still QUEUED is retried.
 * 2. EXECUTING runs past their deadline end FAILED/TIMEOUT, and any worker still on them is told.
 */
export async function sweepRuns(deps: SweepDeps): Promise<{ enqueued: number; timedOut: number }> {
  const missing: string[] = [];
  let retried = 0;
  for (const { id } of await queuedRunsBefore(deps.db, new Date(Date.now() - deps.queuedAfterMs))) {
    const job = await deps.queue.getJob(id);
    if (!job) {
      missing.push(id);
    } else if (await job.isFailed()) {
      await job.retry();
      retried++;
    }
  }
  await enqueueRuns(deps.queue, missing);
  // Time-outs go through the lifecycle together: one settlement statement for all of them.
  const overdue = await overdueRuns(deps.db, new Date());
  const settled = await Promise.all(overdue.map((run) => deps.runs.timeOut(run)));
  const timedOut = settled.filter(Boolean).length;
  await Promise.allSettled(
    overdue.filter((_, i) => settled[i]).map((run) => publishCancel(deps.redis, deps.prefix, run.id)),
  );
  const enqueued = missing.length + retried;
  if (enqueued || timedOut) deps.logger.info("sweep", { enqueued, timed_out: timedOut });
  return { enqueued, timedOut };
}
