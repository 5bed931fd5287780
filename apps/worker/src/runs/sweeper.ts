import { poolOf, runnerSchema } from "@svc/core";
import { overdueRuns, runsToSweep, runsPastCancelAt, runStatuses, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import {
  enqueueRuns,
  laneOf,
  launchRuns,
  JOB_LANES,
  LEASED_JOB_GRACE_MS,
  publishCancel,
  reviveJobs,
  trimQueueIndex,
  type ByLane,
  type Dispatched,
  type LeasedRunsQueue,
  type Revived,
  type RunsQueue,
  type Scheduler,
} from "@svc/queue";
import type { RunLifecycle } from "@svc/use-cases";
import type { RedisClient } from "@svc/queue";

export interface SweepDeps {
  db: Db;
  runs: RunLifecycle;
  /** Each lane's queues (a run's jobs are in its lane's). */
  queue: ByLane<RunsQueue>;
  leased: ByLane<LeasedRunsQueue>;
  scheduler: Scheduler;
  redis: RedisClient;
  prefix: string;
  logger: Logger;
  queuedAfterMs: number;
}

/**
 * Jobs for runs leased a slot, in one addBulk; if that fails, one by one, so that one run whose job
 * cannot be added (a corrupt record) holds up none of the others. Such a run gives its slot back.
 */
async function launchEach(deps: SweepDeps, dispatched: Dispatched[]) {
  try {
    await launchRuns(deps.leased, dispatched);
  } catch (error) {
    if (dispatched.length === 1) {
      deps.logger.warn("sweep could not re-enqueue a run", { run_id: dispatched[0]!.runId, error });
      await deps.scheduler.release([dispatched[0]!.runId]).then((next) => launchEach(deps, next));
      return;
    }
    for (const one of dispatched) await launchEach(deps, [one]);
  }
}

type SweptRun = Awaited<ReturnType<typeof runsToSweep>>[number];

const laneOfRun = (run: SweptRun) => laneOf(run.priority === "batch");

const isPooled = (run: SweptRun) => {
  const parsed = runnerSchema.safeParse(run.runner);
  return parsed.success && poolOf(parsed.data) !== null;
};

/**
 * Runs of limited models that lost their place. One neither waiting in its pool nor leased a slot,
 * with no job to be done, goes back in line (at its creation time, so it keeps its place); one
 * leased a slot longer than LEASED_JOB_GRACE_MS without a job gets one (a worker died executing
 * it where leased before writing its backstop, or Redis lost the job). The runs leased meanwhile.
 */
async function placeAgain(deps: SweepDeps, runs: readonly SweptRun[]) {
  const states = await deps.scheduler.states(runs.map((run) => run.id));
  const unplaced = runs.filter((run) => {
    const state = states.get(run.id);
    return !state?.waiting && !state?.slot;
  });
  // Neither waiting nor leased may also mean dispatched, its prediction already over (the slot
  // given back by Cog's webhook) and its job not yet started: such a run has a job in line, and
  // putting it back would run its model a second time.
  const lost = [];
  for (const run of unplaced) {
    const live = await hasLiveJob(deps.leased[laneOfRun(run)], run.id).catch((error: unknown) => {
      // An unreadable job record: this run is left alone (and said), the others go on.
      deps.logger.warn("sweep could not re-enqueue a run", { run_id: run.id, error });
      return true;
    });
    if (!live) lost.push(run);
  }
  const readmitted = await deps.scheduler.enqueue(
    lost.map((run) => ({ ...run, runId: run.id, pool: run.modelId })),
  );
  // A lease whose job is not there yet may be one a dispatcher is still sending (its work goes to
  // the server first, then the job) or a run executing where leased before its backstop.
  const leasedBefore = Date.now() - LEASED_JOB_GRACE_MS;
  const leased = runs.flatMap((run) => {
    const state = states.get(run.id);
    return state?.slot && (state.leasedAt ?? 0) < leasedBefore
      ? [
          {
            runId: run.id,
            slot: state.slot,
            pool: run.modelId,
            ...(run.priority === "batch" && { batch: true }),
          },
        ]
      : [];
  });
  const jobless = [];
  for (const lease of leased)
    if (!(await deps.leased[laneOf(lease.batch)].getJob(lease.runId))) jobless.push(lease);
  return { dispatched: [...readmitted, ...jobless], placed: lost.length + jobless.length };
}

/**
 * Makes "Redis was down for a minute" and "a worker vanished" non-events. Idempotent, so every
 * worker replica may run it: the same job id cannot be added twice, and settlement is conditional.
 * 1. QUEUED runs with no job (enqueue failed after commit, Redis lost data) are enqueued again;
 *    waiting accounts get their weight and limit as the database has them now (an operator's change);
 *    a job that failed for good while its run is still QUEUED is retried. QUEUED and EXECUTING runs
 *    of limited models that lost their place get it back (placeAgain).
 * 2. EXECUTING runs past their deadline end FAILED/TIMEOUT, and any worker still on them is told.
 * 3. Active runs past their Cancel-After deadline (their deadline job was lost) are canceled.
 * 4. Runs at the head of the queue's index that are no longer queued (their start was recorded
 *    while Redis was away) leave it, so queue positions stay true.
 */
export async function sweepRuns(
  deps: SweepDeps,
): Promise<{ enqueued: number; timedOut: number; deadlines: number; unindexed: number }> {
  const [queued, executing] = await Promise.all([
    runsToSweep(deps.db, "QUEUED", new Date(Date.now() - deps.queuedAfterMs)),
    runsToSweep(deps.db, "EXECUTING", new Date(Date.now() - LEASED_JOB_GRACE_MS)),
  ]);
  const pooled = queued.filter(isPooled);
  const unpooled = queued.filter((run) => !pooled.includes(run));
  const revived: Revived = { enqueued: [], retried: [], failed: [] };
  for (const lane of JOB_LANES) {
    const q = deps.queue[lane];
    const some = await reviveJobs(
      q,
      unpooled.filter((run) => laneOfRun(run) === lane).map(({ id }) => id),
      (ids) => enqueueRuns(q, ids),
    );
    revived.enqueued.push(...some.enqueued);
    revived.retried.push(...some.retried);
    revived.failed.push(...some.failed);
  }
  for (const { id, error } of revived.failed)
    deps.logger.warn("sweep could not re-enqueue a run", { run_id: id, error });
  const placed = await placeAgain(deps, [...pooled, ...executing.filter(isPooled)]);
  // An operator's change of an account's weight or limit reaches the runs it has waiting.
  // So does an owner's change of a key's limit.
  const accounts = new Map<string, Parameters<Scheduler["refreshAccounts"]>[0][number]>();
  for (const run of pooled) {
    const entry = accounts.get(run.accountId) ?? {
      accountId: run.accountId,
      weight: run.weight,
      maxConcurrentRuns: run.maxConcurrentRuns,
      pools: [],
      keys: [],
    };
    if (!entry.pools.includes(run.modelId)) entry.pools.push(run.modelId);
    if (!entry.keys.some((k) => k.keyId === run.keyId))
      entry.keys.push({ keyId: run.keyId, maxConcurrentRuns: run.keyMaxConcurrentRuns });
    accounts.set(run.accountId, entry);
  }
  const refreshed = await deps.scheduler.refreshAccounts([...accounts.values()]);
  await launchEach(deps, [...placed.dispatched, ...refreshed]);
  // Time-outs go through the lifecycle together (one settlement statement for all of them); a run
  // that cannot be settled now is logged and met again by the next sweep.
  const overdue = await overdueRuns(deps.db, new Date());
  const settled = await Promise.allSettled(overdue.map((run) => deps.runs.timeOut(run)));
  const timedOut = overdue.filter((run, i) => {
    const outcome = settled[i]!;
    if (outcome.status === "rejected")
      deps.logger.warn("sweep could not time out a run", { run_id: run.id, error: outcome.reason });
    return outcome.status === "fulfilled" && outcome.value;
  });
  await Promise.allSettled(timedOut.map((run) => publishCancel(deps.redis, deps.prefix, run.id)));
  let deadlines = 0;
  for (const { id } of await runsPastCancelAt(deps.db, new Date())) {
    const outcome = await deps.runs.cancelAtDeadline(id).catch((error: unknown) => {
      deps.logger.warn("sweep could not cancel a run past its Cancel-After", { run_id: id, error });
      return null;
    });
    if (outcome?.kind === "canceled") deadlines++;
  }
  const unindexed = await trimQueueIndex(deps.redis, deps.prefix, async (ids) => {
    const statuses = await runStatuses(deps.db, ids);
    return new Map(
      [...statuses].map(([id, r]) => [id, { queued: r.status === "QUEUED", modelId: r.modelId }]),
    );
  });
  const enqueued = revived.enqueued.length + revived.retried.length + placed.placed;
  if (enqueued || timedOut.length || deadlines || unindexed)
    deps.logger.info("sweep", {
      enqueued,
      timed_out: timedOut.length,
      canceled_at_deadline: deadlines,
      unindexed,
    });
  return { enqueued, timedOut: timedOut.length, deadlines, unindexed };
}

/** Whether the run's leased job is still to be done (waiting, delayed or being executed). */
async function hasLiveJob(leased: LeasedRunsQueue, runId: string): Promise<boolean> {
  const job = await leased.getJob(runId);
  if (!job) return false;
  const state = await job.getState();
  return state !== "completed" && state !== "failed" && state !== "unknown";
}
