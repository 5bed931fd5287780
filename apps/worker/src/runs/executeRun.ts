import type { Job } from "bullmq";
import {
  blockedTerm,
  catalogueEntrySchema,
  settlementCharge,
  type Pricing,
  type RunErrorCode,
  type RunStatus,
} from "@svc/core";
import { findRunWithModel, settleRun, startRun, type Db, type Settlement } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { RunJob } from "@svc/queue";
import type { WorkerMetrics } from "../metrics.js";
import { RunnerCanceled, RunnerError, type OutputStorage, type Runners } from "@svc/runners";

export interface ExecuteDeps {
  db: Db;
  logger: Logger;
  storage: OutputStorage;
  runners: Runners;
  blocklist: readonly string[];
  /** Hands the deliveries recorded with a terminal transition to the delivery queue. */
  enqueueDeliveries(ids: readonly string[]): Promise<void>;
  metrics?: Pick<WorkerMetrics, "runsFinished" | "runQueueWait" | "tokensCharged">;
}

export type ExecuteOutcome = "completed" | "failed" | "canceled" | "skipped";

/**
 * Settles a run and enqueues the deliveries recorded with it. If Redis refuses the enqueue, the
 * deliveries stay pending in Postgres and the sweeper sends them: the settlement stands either way.
 */
export async function settleAndNotify(
  deps: Pick<ExecuteDeps, "db" | "logger" | "enqueueDeliveries">,
  runId: string,
  from: RunStatus[],
  settlement: Settlement,
) {
  const settled = await settleRun(deps.db, runId, from, settlement);
  if (settled?.deliveryIds.length) {
    await deps.enqueueDeliveries(settled.deliveryIds).catch((error: unknown) =>
      deps.logger.warn("enqueue of deliveries failed; the sweeper will send them", {
        run_id: runId,
        error: (error as Error).message,
      }),
    );
  }
  return settled;
}

/**
 * The run job. Safe to run twice: startRun only moves QUEUED/EXECUTING runs, and settleRun only
 * settles an EXECUTING run, so a duplicate, retried or taken-over job never finishes a run twice.
 * Throws only for worker-side failures that a retry may fix; the last attempt fails the run.
 */
export async function executeRun(
  deps: ExecuteDeps,
  job: Job<RunJob>,
  cancelSignal?: AbortSignal,
): Promise<ExecuteOutcome> {
  const outcome = await execute(deps, job, cancelSignal);
  if (deps.metrics && outcome !== "skipped") {
    const run = await deps.db.run.findUnique({
      where: { id: job.data.runId },
      select: { modelId: true, status: true, tokensCharged: true },
    });
    if (run) {
      deps.metrics.runsFinished.inc({ model: run.modelId, outcome: run.status.toLowerCase() });
      if (run.tokensCharged) deps.metrics.tokensCharged.inc({ model: run.modelId }, run.tokensCharged);
    }
  }
  return outcome;
}

async function execute(
  deps: ExecuteDeps,
  job: Job<RunJob>,
  cancelSignal?: AbortSignal,
): Promise<ExecuteOutcome> {
  const { db } = deps;
  const { runId } = job.data;
  const log = deps.logger.child({ run_id: runId, job_id: job.id, attempt: job.attemptsMade + 1 });
  const fail = (errorCode: RunErrorCode, errorMessage: string) =>
    settleAndNotify(deps, runId, ["EXECUTING"], { to: "FAILED", errorCode, errorMessage });

  if (!(await startRun(db, runId))) {
    log.info("run already finished; nothing to do");
    return "skipped";
  }
  const run = (await findRunWithModel(db, runId))!;
  if (run.attempts === 1)
    deps.metrics?.runQueueWait.observe((run.startedAt!.getTime() - run.createdAt.getTime()) / 1000);
  const input = run.input as Record<string, unknown>;
  if (blockedTerm(String(input.prompt ?? ""), deps.blocklist)) {
    await fail("CONTENT_POLICY", "The prompt was rejected by the content policy.");
    log.info("run rejected by content policy");
    return "failed";
  }

  const timeout = AbortSignal.timeout(Math.max(1, run.deadlineAt!.getTime() - Date.now()));
  const signal = cancelSignal ? AbortSignal.any([cancelSignal, timeout]) : timeout;
  const settings = catalogueEntrySchema.shape.runner.parse(run.model.runner);
  log.info("run executing", { model_id: run.modelId });
  try {
    const result = await deps.runners
      .for(settings)
      .run({ runId, input, settings, signal, outputs: deps.storage(), unitsRequested: run.unitsRequested });
    const pricing = run.model.pricing as Pricing;
    const settled = await settleAndNotify(deps, runId, ["EXECUTING"], {
      to: "COMPLETED",
      output: result.output,
      unitsCompleted: Math.min(result.units, run.unitsRequested),
      charge: (reserved) => settlementCharge(pricing, result.units, reserved),
    });
    log.info(
      settled ? "run completed" : "run was settled elsewhere (canceled or timed out); outputs dropped",
      {
        tokens_charged: settled?.run.tokensCharged,
      },
    );
    return settled ? "completed" : "canceled";
  } catch (error) {
    if (timeout.aborted) {
      await fail("TIMEOUT", `The run exceeded its execution timeout of ${run.model.executionTimeoutMs} ms.`);
      log.warn("run timed out");
      return "failed";
    }
    if (cancelSignal?.aborted) {
      log.info("run aborted after cancel");
      return "canceled";
    }
    if (error instanceof RunnerCanceled) {
      await settleAndNotify(deps, runId, ["EXECUTING"], { to: "CANCELED", charge: () => 0 });
      log.info("run canceled by the model server");
      return "canceled";
    }
    if (error instanceof RunnerError) {
      await fail(error.code, error.message);
      log.warn("run failed", { code: error.code, error: error.message });
      return "failed";
    }
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      await fail("INTERNAL_ERROR", "The run could not be executed.");
      log.error("run failed after its last attempt", { error });
      return "failed";
    }
    log.warn("run attempt failed; it will be retried", { error });
    throw error;
  }
}
