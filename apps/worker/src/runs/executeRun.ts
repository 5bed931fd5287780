import type { Job } from "bullmq";
import {
  executionLimit,
  isInstant,
  namesFiles,
  outputKindOf,
  retryWhileDown,
  unitsProduced,
} from "@svc/core";
import type { Logger } from "@svc/logger";
import type { DirectRunJob, InstantRun, JobLane, LeasedRunJob } from "@svc/queue";
import {
  contentPolicyOutcome,
  decideAttempt,
  INPUT_FILE_UNAVAILABLE,
  type AttemptEnd,
  type ProgressRecorder,
  type RunLifecycle,
  type TransitionLane,
} from "@svc/use-cases";
import type { SettledRun } from "@svc/db";
import type { WorkerMetrics } from "../metrics.js";
import type { WorkerDispatcher } from "../scheduling/dispatcher.js";
import { RunnerCanceled, RunnerError, type RunContext, type Runners } from "@svc/runners";
import type { OutputStorage } from "@svc/storage";
import type { Tracing } from "@svc/telemetry";
import { executionFiles, type ExecutionFiles } from "./executionFiles.js";
import { runTrace, type RunTrace } from "./runTrace.js";

export interface ExecuteDeps {
  runs: RunLifecycle;
  /** Spans of the start, the model's execution and the settlement, in the run's trace. */
  tracing: Tracing;
  /** Records a runner's progress reports in the run's event stream (outputs first on the run). */
  progress: Pick<ProgressRecorder, "record" | "flush">;
  /** How long start and settlement are retried while Postgres or Redis is unreachable. */
  outageHorizonMs: number;
  logger: Logger;
  storage: OutputStorage;
  runners: Runners;
  blocklist: readonly string[];
  /** The input as the model server gets it (file ids as signed URLs); undefined: a file is gone. */
  fileInputs(modelId: string, input: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  /** An input file's bytes, for runners that read files themselves (the built-in ones). */
  inputFile: NonNullable<RunContext["inputFile"]>;
  /** Weights' bytes by id (the run's LoRAs, for a model that applies them itself). */
  weights: NonNullable<RunContext["weights"]>;
  /** The model's file fields (names), looked up only for an input that names a file. */
  fileFieldsOf(modelId: string): Promise<string[]>;
  /** Stops the work sent to a slot before the start, of a run that needs no execution. */
  abandon(modelId: string, runId: string, slot: string): Promise<void>;
  /** Holds a leased run's slot while it executes and gives it back when the run has ended. */
  slots: Pick<WorkerDispatcher, "hold" | "holds" | "releaseHeld" | "forget">;
  metrics?: Pick<WorkerMetrics, "runsFinished" | "runQueueWait" | "tokensCharged" | "dispatchLatency">;
  /**
   * Told of each run this worker ended: the batch feeder refills its model's place at once, and
   * what a synchronous Cog prediction's progress reports kept is forgotten.
   */
  onFinished?: (run: Pick<SettledRun, "id" | "modelId">) => void;
}

/** What executing a run reads of its job: BullMQ's, or a view of it for a run executed where leased. */
export type RunJobOf<T> = Pick<Job<T>, "id" | "data" | "attemptsMade" | "opts">;

export type ExecuteOutcome = "completed" | "failed" | "canceled" | "skipped";

type Decision = Parameters<RunLifecycle["finish"]>[1];

/**
 * The run job. A run of a limited model comes with the slot the scheduler leased it: the lease is
 * renewed while the run executes here and given back once the run has ended (or needs no
 * execution), so that the next waiting run takes the slot; an attempt that fails to be retried
 * keeps it (the retry renews it again).
 */
export async function executeRun(
  deps: ExecuteDeps,
  job: RunJobOf<DirectRunJob | LeasedRunJob>,
  lane: JobLane,
  cancelSignal?: AbortSignal,
  /** The run's work, sent to its slot by this process before its start (a run executed where leased). */
  sentEarly?: Promise<boolean>,
): Promise<ExecuteOutcome> {
  const { runId } = job.data;
  if (!("slot" in job.data)) return execute(deps, job, lane, cancelSignal);
  deps.slots.hold(runId);
  let outcome: ExecuteOutcome;
  try {
    outcome = await execute(deps, job, lane, cancelSignal, sentEarly);
  } catch (error) {
    deps.slots.forget(runId);
    throw error;
  }
  await deps.slots
    .releaseHeld(runId)
    .catch((error: unknown) =>
      deps.logger.warn("slot release failed; the lease lapses instead", { run_id: runId, error }),
    );
  return outcome;
}

/**
 * A batch item's transition that holds up nothing goes through the lifecycle's patient lane: its
 * start once its work is on its server (begun), its settlement once its place is free (a Cog
 * runner gives it back as the prediction answers).
 */
const patientIf = (lane: JobLane, holdsUpNothing: boolean): TransitionLane =>
  lane === "batch" && holdsUpNothing ? "patient" : "prompt";

/**
 * Safe to run twice: start only moves QUEUED/EXECUTING runs, and finish only settles
 * an EXECUTING run, so a duplicate, retried or taken-over job never finishes a run twice.
 * Throws only for worker-side failures that a retry may fix; the last attempt fails the run.
 * A passing outage of Postgres or Redis neither burns attempts at start nor throws away a
 * finished run: both transitions are retried until OUTAGE_HORIZON_MS, the outputs kept meanwhile.
 */
async function execute(
  deps: ExecuteDeps,
  job: RunJobOf<DirectRunJob | LeasedRunJob>,
  lane: JobLane,
  cancelSignal?: AbortSignal,
  sentEarly?: Promise<boolean>,
): Promise<ExecuteOutcome> {
  const { runs } = deps;
  const { runId } = job.data;
  const log = deps.logger.child({ run_id: runId, job_id: job.id, attempt: job.attemptsMade + 1 });
  const throughOutage = <T>(transition: string, fn: () => Promise<T>) =>
    retryWhileDown(fn, {
      horizonMs: deps.outageHorizonMs,
      onRetry: (error, attempt, delayMs) =>
        log.warn(`run ${transition} waits for the database`, { retry: attempt, delay_ms: delayMs, error }),
    });

  const instant = "instant" in job.data ? job.data.instant : undefined;
  if (instant && isInstant(instant.runner)) {
    const ended = await executeInstant(deps, job, instant, log, throughOutage);
    if (ended) return ended;
  }
  // Sent before the start: by this process (sentEarly), or by the worker that leased the slot.
  const begun = sentEarly ?? ("slot" in job.data && job.data.begun ? Promise.resolve(true) : undefined);
  const startBegan = Date.now();
  // A batch item whose work is on its server already waits for nothing but its start's answer,
  // until its prediction ends: its start may wait for other items' company (a statement shared).
  const startLane = patientIf(lane, begun !== undefined && (await begun));
  const run = await throughOutage("start", () => runs.start(runId, startLane));
  if (!run) {
    // Work sent before the start (by the dispatching worker) for a run canceled meanwhile stops.
    if ("slot" in job.data && begun && (await begun)) await deps.abandon(job.data.pool, runId, job.data.slot);
    log.info("run already finished; nothing to do");
    return "skipped";
  }
  const traced = runTrace(deps.tracing, run, startBegan, job.attemptsMade + 1);
  const files = executionFiles(deps, run);
  let ended: ExecuteOutcome | undefined;
  try {
    ended = await executeStarted(
      deps,
      job,
      lane,
      run,
      log,
      throughOutage,
      traced,
      files,
      cancelSignal,
      begun,
    );
    return ended;
  } finally {
    await files.close(log);
    traced?.end(ended ?? "retried");
  }
}

/**
 * An instant run (core's isInstant) is executed from its job, before anything is recorded, and
 * started and ended in one statement: one transition of the database instead of two. Its stream
 * still shows EXECUTING, then the end, and its run.started webhooks are sent. undefined when the
 * run was not as its job says (canceled, or executing after a crash): the usual way decides.
 */
async function executeInstant(
  deps: ExecuteDeps,
  job: RunJobOf<DirectRunJob>,
  instant: InstantRun,
  log: Logger,
  throughOutage: <T>(transition: string, fn: () => Promise<T>) => Promise<T>,
): Promise<ExecuteOutcome | undefined> {
  const { runId } = job.data;
  const startedAt = new Date(Math.max(Date.now(), instant.createdAt));
  const run = { id: runId, modelId: instant.modelId, traceParent: instant.traceParent ?? null };
  const traced = runTrace(deps.tracing, run, startedAt.getTime(), job.attemptsMade + 1);
  const step = <T>(name: string, fn: () => Promise<T>) => (traced ? traced.step(name, fn) : fn());
  let ended: ExecuteOutcome | undefined;
  try {
    const input = inputOf(instant.input);
    if (!input) return undefined;
    let outcome: Parameters<RunLifecycle["finishInstant"]>[2] | null = contentPolicyOutcome(
      input,
      deps.blocklist,
    );
    if (!outcome) {
      // A runner's failure is left to the usual way, which knows retries and failures.
      const result = await step("model.execute", () =>
        deps.runners.for(instant.runner).run({
          runId,
          input,
          settings: instant.runner,
          signal: new AbortController().signal,
          outputs: deps.storage(runId),
          unitsRequested: instant.unitsRequested,
          fresh: true,
          progress: async () => {},
        }),
      ).catch(() => undefined);
      if (!result) return undefined;
      outcome = {
        to: "COMPLETED",
        output: result.output,
        units: unitsProduced(outputKindOf(instant.runner), result.output, instant.unitsRequested),
      };
    }
    const settled = await step("run.settle", () =>
      throughOutage("settlement", () =>
        deps.runs.finishInstant({ id: runId, ...instant }, startedAt, outcome),
      ),
    );
    if (!settled) return undefined;
    deps.metrics?.runQueueWait.observe((startedAt.getTime() - instant.createdAt) / 1000);
    ended = finished(deps, settled, log, {
      model_id: instant.modelId,
      duration_ms: Date.now() - startedAt.getTime(),
      ...(outcome.to === "FAILED" && { code: outcome.errorCode }),
    });
    return ended;
  } finally {
    traced?.end(ended ?? "executed the usual way");
  }
}

/** A job's input JSON as an object, or undefined (the run's stored input is read instead). */
function inputOf(json: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Counts and logs a run the worker ended. */
function finished(
  deps: ExecuteDeps,
  settled: SettledRun,
  log: Logger,
  fields: Record<string, unknown>,
): ExecuteOutcome {
  const outcome =
    settled.status === "COMPLETED" ? "completed" : settled.status === "FAILED" ? "failed" : "canceled";
  deps.metrics?.runsFinished.inc({ model: settled.modelId, outcome: settled.status.toLowerCase() });
  if (settled.tokensCharged)
    deps.metrics?.tokensCharged.inc({ model: settled.modelId }, settled.tokensCharged);
  log.info(`run ${outcome}`, { ...fields, tokens_charged: settled.tokensCharged });
  deps.onFinished?.(settled);
  return outcome;
}

type Started = NonNullable<Awaited<ReturnType<RunLifecycle["start"]>>>;

/** An execution of a started run, as settling it needs it. */
interface Attempt {
  job: RunJobOf<DirectRunJob | LeasedRunJob>;
  lane: JobLane;
  run: Started;
  log: Logger;
  throughOutage: <T>(transition: string, fn: () => Promise<T>) => Promise<T>;
  step: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
  files: ExecutionFiles;
}

/** Settles the run as the attempt's decision says, keeping the files its output shows. */
async function settleAttempt(deps: ExecuteDeps, a: Attempt, decision: Decision): Promise<ExecuteOutcome> {
  const { run, log, files } = a;
  const settleLane = patientIf(a.lane, "slot" in a.job.data && !deps.slots.holds(run.id));
  const settled = await a
    .step("run.settle", () =>
      a.throughOutage("settlement", () => deps.runs.finish(run, decision, settleLane)),
    )
    .catch((error: unknown) => {
      // Whether the settlement committed is unknown (its answer may be what was lost): the run
      // may now show these files, so none of them goes.
      if (decision.to === "COMPLETED") files.keep(decision.output);
      throw error;
    });
  if (!settled) {
    log.info("run was settled elsewhere (canceled or timed out); its result is dropped");
    return "canceled";
  }
  if (decision.to === "COMPLETED") files.keep(decision.output);
  return finished(deps, settled, log, {
    model_id: run.modelId,
    duration_ms: run.now().getTime() - run.startedAt.getTime(),
    ...(decision.to === "FAILED" && { code: decision.errorCode }),
    ...(decision.to === "TIMEOUT" && { code: "TIMEOUT" }),
  });
}

async function executeStarted(
  deps: ExecuteDeps,
  job: RunJobOf<DirectRunJob | LeasedRunJob>,
  lane: JobLane,
  run: Started,
  log: Logger,
  throughOutage: <T>(transition: string, fn: () => Promise<T>) => Promise<T>,
  traced: RunTrace,
  files: ExecutionFiles,
  cancelSignal?: AbortSignal,
  begun?: Promise<boolean>,
): Promise<ExecuteOutcome> {
  const { runs, metrics } = deps;
  const { runId } = job.data;
  const step = <T>(name: string, fn: () => Promise<T>) => (traced ? traced.step(name, fn) : fn());
  if (run.attempts === 1)
    metrics?.runQueueWait.observe((run.startedAt.getTime() - run.createdAt.getTime()) / 1000);
  const finish = (decision: Decision) =>
    settleAttempt(deps, { job, lane, run, log, throughOutage, step, files }, decision);

  const refused = contentPolicyOutcome(run.input, deps.blocklist);
  if (refused) return finish(refused);
  const input = await throughOutage("file inputs", () => deps.fileInputs(run.modelId, run.input));
  if (!input) return finish(INPUT_FILE_UNAVAILABLE);
  const fileFields = namesFiles(run.input)
    ? (await throughOutage("file inputs", () => deps.fileFieldsOf(run.modelId))).filter(
        (f) => run.input[f] !== undefined && run.input[f] !== null,
      )
    : [];

  // The run's deadline and its cancel, as one signal (core's timeouts.ts).
  const limit = executionLimit(run.deadlineAt, run.now(), cancelSignal);
  const { signal } = limit;
  const settings = run.runner;
  log.debug("run executing", { model_id: run.modelId });
  const leased = "slot" in job.data ? job.data : undefined;
  if (leased && run.attempts === 1)
    metrics?.dispatchLatency.observe(
      { model: run.modelId },
      Math.max(0, Date.now() - leased.leasedAt) / 1000,
    );
  // How the attempt ended; what that means for the run is decideAttempt's. Settling it is outside,
  // so that a settlement failure is never mistaken for a runner failure (and the model run again).
  let end: AttemptEnd;
  let failure: unknown;
  try {
    const result = await step("model.execute", () =>
      deps.runners.for(settings).run({
        runId,
        input,
        settings,
        signal,
        outputs: files.outputs,
        unitsRequested: run.unitsRequested,
        slot: leased?.slot,
        fresh: run.attempts === 1,
        ...(begun && run.attempts === 1 && { begun }),
        progress: files.progress,
        inputFile: deps.inputFile,
        weights: deps.weights,
        fileFields,
      }),
    );
    end = {
      kind: "produced",
      output: result.output,
      units: unitsProduced(outputKindOf(run.runner), result.output, run.unitsRequested),
    };
  } catch (error) {
    failure = error;
    if (limit.timedOut()) end = { kind: "timed_out" };
    else if (cancelSignal?.aborted) end = { kind: "canceled" };
    else if (error instanceof RunnerCanceled) end = { kind: "canceled_by_model" };
    else if (error instanceof RunnerError)
      end = { kind: "model_failed", code: error.code, message: error.message };
    else end = { kind: "broke", lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) };
  } finally {
    limit.clear();
    // The runner's last reports reach the stream while the run is still EXECUTING, before its end.
    await deps.progress.flush(runId);
  }
  const decision = decideAttempt(end);
  if ("retry" in decision) {
    log.warn("run attempt failed; it will be retried", { error: failure });
    throw failure;
  }
  if ("canceledByModel" in decision) {
    if (await throughOutage("cancel", () => runs.canceledByModel(runId))) {
      metrics?.runsFinished.inc({ model: run.modelId, outcome: "canceled" });
      log.info("run canceled by the model server", { model_id: run.modelId });
    } else log.info("run was settled elsewhere (canceled or timed out); its result is dropped");
    return "canceled";
  }
  if (!decision.settle) {
    log.info("run aborted after cancel");
    return "canceled";
  }
  if (end.kind === "broke") log.error("run failed after its last attempt", { error: failure });
  return finish(decision.settle);
}
