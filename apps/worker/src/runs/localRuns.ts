import type { Job } from "bullmq";
import type { Logger } from "@svc/logger";
import {
  BACKSTOP_AFTER_MS,
  backstopRuns,
  LEASED_RUN_JOB,
  type Dispatched,
  laneOf,
  type ByLane,
  type JobLane,
  type LeasedRunJob,
  type LeasedRunsQueue,
} from "@svc/queue";
import type { RunJobOf } from "./executeRun.js";

export interface LocalRuns {
  /** False once the worker stops: runs leased here from then on go to the other workers. */
  accepting(): boolean;
  /** Executes leased runs in this process, at once (their backstop jobs come later, if at all). */
  launch(dispatched: readonly Dispatched[], begun?: ReadonlyMap<string, Promise<boolean>>): void;
  /** Aborts a run executing here (a cancel); true when it was here. */
  cancel(runId: string, reason: string): boolean;
  /** Takes no more runs and waits for those executing here (the caller bounds the wait). */
  drain(): Promise<void>;
}

interface Executing {
  dispatched: Dispatched;
  startedAt: number;
  controller: AbortController;
  done: Promise<void>;
  /** Its backstop job, once one is being written (resolves to undefined when the write failed). */
  job?: Promise<Job<LeasedRunJob> | undefined>;
}

/** Writes the backstop jobs of `entries`, due in `delayMs`, in one round trip. */
function writeBackstops(
  deps: { leased: ByLane<LeasedRunsQueue>; logger: Logger },
  entries: Executing[],
  delayMs: number,
) {
  const written = backstopRuns(
    deps.leased,
    entries.map((e) => e.dispatched),
    delayMs,
  );
  entries.forEach((entry, i) => {
    entry.job = written.then(
      (jobs) => jobs[i],
      (error: unknown) => {
        deps.logger.warn("a local run's backstop job could not be written", {
          run_id: entry.dispatched.runId,
          error,
        });
        delete entry.job; // the next pass writes it
        return undefined;
      },
    );
  });
}

/**
 * Leased runs executed by the worker that leased their slot (core's executesWhereLeased): the
 * slot's next piece of work leaves as soon as the slot is free, with no job hop to another worker.
 * A run still executing after `backstopAfterMs` gets its job, delayed by `backstopMs` (RUN_LOCK_MS)
 * and pushed back every third of it while the run executes here, then removed: a worker that dies
 * leaves the job due, and another worker takes the run over as it takes over a stalled job (one
 * that dies sooner leaves a jobless lease, which the sweeper gives a job). An attempt that fails to
 * be retried (a worker-side failure) makes its job due after a job's first backoff; the job's
 * attempts are the retries (one fewer than a job's own, so that a run gets as many in all).
 */
export function localRuns(deps: {
  leased: ByLane<LeasedRunsQueue>;
  /** `begun`: the run's work sent before its start (Runner.begin), which the execution continues. */
  execute(
    job: RunJobOf<LeasedRunJob>,
    lane: JobLane,
    signal: AbortSignal,
    begun?: Promise<boolean>,
  ): Promise<unknown>;
  backstopMs: number;
  backstopAfterMs?: number;
  logger: Logger;
}): LocalRuns {
  const { logger, backstopAfterMs = BACKSTOP_AFTER_MS } = deps;
  const executing = new Map<string, Executing>();
  let accepting = true;
  const { attempts = 1, backoff } = LEASED_RUN_JOB.options;
  const retryInMs = typeof backoff === "number" ? backoff : (backoff?.delay ?? 0);

  const backstops = setInterval(
    () => {
      const due = Date.now() - backstopAfterMs;
      const unwritten = [...executing.values()].filter((e) => !e.job && e.startedAt <= due);
      if (unwritten.length) writeBackstops(deps, unwritten, deps.backstopMs);
    },
    Math.max(50, Math.floor(backstopAfterMs / 4)),
  );
  const pushBack = setInterval(
    () => {
      for (const entry of executing.values())
        void entry.job?.then((job) =>
          job
            ?.changeDelay(deps.backstopMs)
            .catch((error: unknown) =>
              logger.warn("pushing back a local run's job failed", { run_id: job.data.runId, error }),
            ),
        );
    },
    Math.max(100, Math.floor(deps.backstopMs / 3)),
  );
  backstops.unref();
  pushBack.unref();

  async function execute(entry: Executing, begun?: Promise<boolean>) {
    const { runId, slot, pool, leasedAt = entry.startedAt } = entry.dispatched;
    // The first attempt of as many as a job has: the job's own attempts are the rest.
    const view: RunJobOf<LeasedRunJob> = {
      id: runId,
      data: { runId, slot, pool, leasedAt },
      attemptsMade: 0,
      opts: { ...LEASED_RUN_JOB.options, attempts },
    };
    let retry = false;
    try {
      await deps.execute(view, laneOf(entry.dispatched.batch), entry.controller.signal, begun);
    } catch (error) {
      retry = true;
      logger.warn("local run attempt failed; its job retries it", { run_id: runId, error });
    } finally {
      executing.delete(runId);
    }
    const job = await entry.job;
    // A job that another worker took meanwhile (this one was stalled past the backstop) is left to
    // it: that execution finds the run ended, or takes it over.
    if (!retry) await job?.remove().catch(() => {});
    else if (job)
      await job
        .changeDelay(retryInMs)
        .catch((error: unknown) =>
          logger.warn("a local run's retry could not be scheduled", { run_id: runId, error }),
        );
    else {
      writeBackstops(deps, [entry], retryInMs);
      await entry.job;
    }
  }

  return {
    accepting: () => accepting,
    launch(dispatched, begun) {
      const startedAt = Date.now();
      for (const d of dispatched) {
        const entry: Executing = {
          dispatched: d,
          startedAt,
          controller: new AbortController(),
          done: Promise.resolve(),
        };
        executing.set(d.runId, entry);
        entry.done = execute(entry, begun?.get(d.runId));
      }
    },
    cancel(runId, reason) {
      const entry = executing.get(runId);
      entry?.controller.abort(new Error(reason));
      return entry !== undefined;
    },
    async drain() {
      accepting = false;
      await Promise.all([...executing.values()].map((e) => e.done));
      clearInterval(backstops);
      clearInterval(pushBack);
    },
  };
}
