import type { Job } from "bullmq";
import type { Logger } from "@svc/logger";
import {
  backstopRuns,
  LEASED_RUN_JOB,
  type Dispatched,
  type LeasedRunJob,
  type LeasedRunsQueue,
} from "@svc/queue";
import type { RunJobOf } from "./executeRun.js";

export interface LocalRuns {
  /** False once the worker stops: runs leased here from then on go to the other workers. */
  accepting(): boolean;
  /**
   * Executes leased runs in this process, at once: each one's backstop job is in Redis when this
   * resolves, and its execution goes on.
   */
  launch(dispatched: readonly Dispatched[], begun?: ReadonlyMap<string, Promise<boolean>>): Promise<void>;
  /** Aborts a run executing here (a cancel); true when it was here. */
  cancel(runId: string, reason: string): boolean;
  /** Takes no more runs and waits for those executing here (the caller bounds the wait). */
  drain(): Promise<void>;
}

/**
 * Leased runs executed by the worker that leased their slot (core's executesWhereLeased): the
 * slot's next piece of work leaves as soon as the slot is free, with no job hop to another worker.
 * The run's job is still written, delayed by `backstopMs` (RUN_LOCK_MS), and pushed back every
 * third of it while the run executes here, then removed: a worker that dies leaves the job due,
 * and another worker takes the run over as it takes over a stalled job. An attempt that fails to
 * be retried (a worker-side failure) makes its job due after a job's first backoff; the job's
 * attempts are the retries (one fewer than a job's own, so that a run gets as many in all).
 */
export function localRuns(deps: {
  leased: LeasedRunsQueue;
  /** `begun`: the run's work sent before its start (Runner.begin), which the execution continues. */
  execute(job: RunJobOf<LeasedRunJob>, signal: AbortSignal, begun?: Promise<boolean>): Promise<unknown>;
  backstopMs: number;
  logger: Logger;
}): LocalRuns {
  const { logger } = deps;
  const executing = new Map<
    string,
    { job: Job<LeasedRunJob>; controller: AbortController; done: Promise<void> }
  >();
  let accepting = true;
  const { attempts = 1, backoff } = LEASED_RUN_JOB.options;
  const retryInMs = typeof backoff === "number" ? backoff : (backoff?.delay ?? 0);

  const pushBack = setInterval(
    () => {
      for (const { job } of executing.values())
        job
          .changeDelay(deps.backstopMs)
          .catch((error: unknown) =>
            logger.warn("pushing back a local run's job failed", { run_id: job.data.runId, error }),
          );
    },
    Math.max(100, Math.floor(deps.backstopMs / 3)),
  );
  pushBack.unref();

  async function execute(job: Job<LeasedRunJob>, controller: AbortController, begun?: Promise<boolean>) {
    const { runId } = job.data;
    // The first attempt of as many as a job has: the job's own attempts are the rest.
    const view: RunJobOf<LeasedRunJob> = {
      id: job.id,
      data: job.data,
      attemptsMade: 0,
      opts: { ...job.opts, attempts },
    };
    let retry = false;
    try {
      await deps.execute(view, controller.signal, begun);
    } catch (error) {
      retry = true;
      logger.warn("local run attempt failed; its job retries it", { run_id: runId, error });
    } finally {
      executing.delete(runId);
    }
    // A job that another worker took meanwhile (this one was stalled past the backstop) is left to
    // it: that execution finds the run ended, or takes it over.
    if (retry)
      await job
        .changeDelay(retryInMs)
        .catch((error: unknown) =>
          logger.warn("a local run's retry could not be scheduled", { run_id: runId, error }),
        );
    else await job.remove().catch(() => {});
  }

  return {
    accepting: () => accepting,
    async launch(dispatched, begun) {
      if (!dispatched.length) return;
      for (const job of await backstopRuns(deps.leased, dispatched, deps.backstopMs)) {
        const controller = new AbortController();
        const entry = { job, controller, done: Promise.resolve() };
        executing.set(job.data.runId, entry);
        entry.done = execute(job, controller, begun?.get(job.data.runId));
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
      clearInterval(pushBack);
    },
  };
}
