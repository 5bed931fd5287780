import type { Job } from "bullmq";
import { blockedTerm, catalogueEntrySchema, settlementCharge, type Pricing } from "@svc/core";
import { findRunWithModel, settleRun, startRun, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { RunJob } from "@svc/queue";
import { RunnerError, runnerFor, type OutputStorage } from "@svc/runners";

export interface ExecuteDeps {
  db: Db;
  logger: Logger;
  storage: OutputStorage;
  blocklist: readonly string[];
}

export type ExecuteOutcome = "completed" | "failed" | "canceled" | "skipped";

const fail = (
  db: Db,
  runId: string,
  errorCode: "CONTENT_POLICY" | "TIMEOUT" | "INTERNAL_ERROR" | RunnerError["code"],
  errorMessage: string,
) => settleRun(db, runId, ["EXECUTING"], { to: "FAILED", errorCode, errorMessage });

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
  const { db } = deps;
  const { runId } = job.data;
  const log = deps.logger.child({ run_id: runId, job_id: job.id, attempt: job.attemptsMade + 1 });
  if (!(await startRun(db, runId))) {
    log.info("run already finished; nothing to do");
    return "skipped";
  }
  const run = (await findRunWithModel(db, runId))!;
  const input = run.input as Record<string, unknown>;
  const term = blockedTerm(String(input.prompt ?? ""), deps.blocklist);
  if (term) {
    await fail(db, runId, "CONTENT_POLICY", "The prompt was rejected by the content policy.");
    log.info("run rejected by content policy");
    return "failed";
  }

  const remaining = run.deadlineAt!.getTime() - Date.now();
  const timeout = AbortSignal.timeout(Math.max(1, remaining));
  const signal = cancelSignal ? AbortSignal.any([cancelSignal, timeout]) : timeout;
  const settings = catalogueEntrySchema.shape.runner.parse(run.model.runner);
  log.info("run executing", { model_id: run.modelId });
  try {
    const result = await runnerFor(settings).run({ runId, input, settings, signal, outputs: deps.storage() });
    const pricing = run.model.pricing as Pricing;
    const settled = await settleRun(db, runId, ["EXECUTING"], {
      to: "COMPLETED",
      output: result.output,
      unitsCompleted: Math.min(result.units, run.unitsRequested),
      charge: (reserved) => settlementCharge(pricing, result.units, reserved),
    });
    log.info(
      settled ? "run completed" : "run was settled elsewhere (canceled or timed out); outputs dropped",
      {
        tokens_charged: settled?.tokensCharged,
      },
    );
    return settled ? "completed" : "canceled";
  } catch (error) {
    if (timeout.aborted) {
      await fail(
        db,
        runId,
        "TIMEOUT",
        `The run exceeded its execution timeout of ${run.model.executionTimeoutMs} ms.`,
      );
      log.warn("run timed out");
      return "failed";
    }
    if (cancelSignal?.aborted) {
      log.info("run aborted after cancel");
      return "canceled";
    }
    if (error instanceof RunnerError) {
      await fail(db, runId, error.code, error.message);
      log.warn("run failed", { code: error.code, error: error.message });
      return "failed";
    }
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      await fail(db, runId, "INTERNAL_ERROR", "The run could not be executed.");
      log.error("run failed after its last attempt", { error });
      return "failed";
    }
    log.warn("run attempt failed; it will be retried", { error });
    throw error;
  }
}
