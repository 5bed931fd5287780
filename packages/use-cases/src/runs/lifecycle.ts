// The run lifecycle: the one place that creates, starts, settles, cancels and times out runs, for
// the API, the worker and the sweeper alike, and the one owner of the run rules (which model may
// run, what a run reserves and is charged, which events its webhook gets, what an Idempotency-Key
// replay is, when a run timed out). Callers translate its results; its transitions go through the
// group-committed pipelines (pipelines.ts).
import {
  DEADLINE_CANCEL_CODE,
  planSettlement,
  runCharge,
  startedBodies,
  timeoutDecision,
  type Mode,
  type Pricing,
  type RunPrice,
  type RecordedEvent,
  type RunErrorCode,
  type RunnerSettings,
  type RunApi,
  type RunLane,
  type RunStatus,
  type SettlementDecision,
  type WebhookFilterValue,
} from "@svc/core";
import {
  findRun,
  findRunForAccount,
  type Db,
  type KeyBudgetState,
  type SettledRun,
  type StartedRun,
} from "@svc/db";
import type { Logger } from "@svc/logger";
import type { AdmittedRun, InstantRun } from "@svc/queue";
import { cancelRun } from "./cancellation.js";
import { createRun } from "./creation.js";
import { createPipelines, isError, type Pipelines, type TransitionLane } from "./pipelines.js";

export type { TransitionLane } from "./pipelines.js";

/** A created run handed to the workers: straight away (pool null), or through its pool's queue. */
export type { AdmittedRun } from "@svc/queue";

/** Transport for what the lifecycle commits. Failures are logged: the sweeper redoes the work. */
export interface LifecycleQueues {
  admitRuns(runs: readonly AdmittedRun[]): Promise<void>;
  enqueueDeliveries(deliveryIds: readonly string[]): Promise<void>;
  /** Runs' events for their streams and waiting requests; lost ones are met by a stored-state check. */
  recordEvents(events: readonly RecordedEvent[]): Promise<void>;
  /** Cancel-After: a job at each deadline (the sweeper backs it up). */
  scheduleDeadlines(deadlines: readonly { runId: string; at: Date }[]): Promise<void>;
  /** Drops a canceled run's waiting job and tells the worker executing it to abort. */
  stopRun(runId: string): Promise<void>;
}

export interface GroupCommitSettings {
  windowMs: number;
  /** The window of settlements (GROUP_COMMIT_SETTLE_WINDOW_MS); windowMs when not given. */
  settleWindowMs?: number;
  /** The window of the patient lane's starts and settlements (GROUP_COMMIT_BATCH_WINDOW_MS). */
  patientWindowMs?: number;
  maxBatch: number;
  maxInFlight: number;
}

/** The settings from the service's configuration (GROUP_COMMIT_*). */
export const groupCommitSettings = (config: {
  GROUP_COMMIT_WINDOW_MS: number;
  GROUP_COMMIT_SETTLE_WINDOW_MS: number;
  GROUP_COMMIT_BATCH_WINDOW_MS: number;
  GROUP_COMMIT_MAX_BATCH: number;
  GROUP_COMMIT_IN_FLIGHT: number;
}): GroupCommitSettings => ({
  windowMs: config.GROUP_COMMIT_WINDOW_MS,
  settleWindowMs: config.GROUP_COMMIT_SETTLE_WINDOW_MS,
  patientWindowMs: config.GROUP_COMMIT_BATCH_WINDOW_MS,
  maxBatch: config.GROUP_COMMIT_MAX_BATCH,
  maxInFlight: config.GROUP_COMMIT_IN_FLIGHT,
});

/** How long runs' events are kept (RUN_EVENTS_RETENTION_SECONDS once ended; a day while active). */
export const runEventSettings = (config: { RUN_EVENTS_RETENTION_SECONDS: number }) => ({
  activeTtlMs: 86_400_000,
  endedTtlMs: config.RUN_EVENTS_RETENTION_SECONDS * 1_000,
});

export interface LifecycleDeps {
  db: Db;
  queues: LifecycleQueues;
  logger: Logger;
  groupCommit: GroupCommitSettings;
}

export interface CreateRunCommand {
  accountId: string;
  apiKeyId: string;
  /** The key's own limit of runs executing at once on limited pools (null: the account's alone). */
  keyMaxConcurrentRuns?: number | null;
  mode: Mode;
  model: { id: string; status: string; pricing: Pricing; runner: RunnerSettings };
  /** Its turns among accounts waiting for the same model, and its limit of runs executing at once. */
  account: { weight: number; maxConcurrentRuns: number | null };
  priority: RunLane;
  /** Validated against the model's schema, defaults applied. */
  input: Record<string, unknown>;
  /** The sha256 of each weights its LoRAs load (warm routing sends it where they are loaded). */
  weights?: readonly string[];
  /** The request body as sent: with an Idempotency-Key, a replay must send the same. */
  body: unknown;
  webhookUrl: string | null;
  /** What the run's own webhook_url receives; null: the default (completed and failed). */
  webhookEventsFilter: readonly WebhookFilterValue[] | null;
  idempotencyKey: string | null;
  /** Cancel-After, in ms from now. */
  cancelAfterMs: number | null;
  /** W3C traceparent of the request (tracing on), kept with the run for the worker's spans. */
  traceParent?: string | undefined;
  /** The API style it came through (default ours). */
  api?: RunApi;
}

/**
 * The batch line a run is made for, and the batch's discount (percent off the model's price): the
 * run is made only while the line waits, and the same statement admits the line.
 */
export interface BatchLine {
  batchId: string;
  line: number;
  discountPercent: number;
}

/** How an execution ended, as the worker saw it; the lifecycle decides what the run becomes. */
export type RunOutcome =
  | { to: "COMPLETED"; output: Record<string, unknown>; units: number }
  | { to: "FAILED"; errorCode: RunErrorCode; errorMessage: string }
  | { to: "TIMEOUT" };

export interface CreatedRun {
  id: string;
  modelId: string;
  mode: Mode;
  estimatedTokens: number;
  createdAt: Date;
}

export type CreateRunResult =
  | { kind: "created"; run: CreatedRun }
  | { kind: "replayed"; run: CreatedRun }
  | { kind: "insufficient"; needed: number }
  | { kind: "over_budget"; needed: number; budget: KeyBudgetState }
  | { kind: "key_reused" }
  | { kind: "model_not_active"; status: string };

/** A batch line's run, or its line no longer waits (admitted by another pass, ended by a cancel or the window). */
export type CreateBatchRunResult = CreateRunResult | { kind: "line_taken" };

/** A run being executed, as its start returned it. */
export interface ExecutingRun extends StartedRun {
  /** The current time on the database's clock (its clock at the start, plus time elapsed here). */
  now(): Date;
}

export type CancelResult =
  | { kind: "canceled"; run: { id: string; canceledAt: Date } }
  | { kind: "already_canceled"; run: { id: string; canceledAt: Date } }
  | { kind: "not_cancelable"; status: RunStatus }
  | { kind: "not_found" };

export interface RunLifecycle {
  create(command: CreateRunCommand): Promise<CreateRunResult>;
  /** A batch line's run (at the batch's price), made and the line admitted in one statement. */
  createForLine(command: CreateRunCommand, line: BatchLine): Promise<CreateBatchRunResult>;
  /**
   * QUEUED (or EXECUTING, taken over) -> EXECUTING; null when the run needs no execution. `lane`
   * patient: nothing waits for the answer yet (the run's work is on its server already), so the
   * start may wait for company (pipelines.ts).
   */
  start(runId: string, lane?: TransitionLane): Promise<ExecutingRun | null>;
  /**
   * Ends an executing run as its outcome says; null when another settlement (a cancel, a time-out)
   * won. `lane` patient: nothing waits for it (the run's place is free already).
   */
  finish(run: ExecutingRun, outcome: RunOutcome, lane?: TransitionLane): Promise<SettledRun | null>;
  /**
   * Starts and ends an instant run, executed already (from `startedAt`), in one transition: from
   * QUEUED only, holding the reservation its job carries. null when the run was not so (canceled,
   * started elsewhere, a job older than the run's state): the caller executes it the usual way.
   */
  finishInstant(
    run: { id: string } & Omit<InstantRun, "input" | "runner" | "createdAt" | "traceParent">,
    startedAt: Date,
    outcome: Exclude<RunOutcome, { to: "TIMEOUT" }>,
  ): Promise<SettledRun | null>;
  cancel(owner: { accountId: string; mode: Mode }, runId: string): Promise<CancelResult>;
  /** Cancel-After: cancels and refunds the run if it has not ended, with the reason in its record. */
  cancelAtDeadline(runId: string): Promise<CancelResult>;
  /** The model server canceled the prediction itself; false when another settlement won. */
  canceledByModel(runId: string): Promise<boolean>;
  /** FAILED/TIMEOUT for an EXECUTING run past its deadline; null when it had ended already. */
  timeOut(run: {
    id: string;
    accountId: string;
    modelId: string;
    reservedTokens: number;
    executionTimeoutMs: number;
  }): Promise<SettledRun | null>;
  /** Resolves when every transition submitted so far is committed. */
  drain(): Promise<void>;
}

/** What the lifecycle's steps (creation.ts, cancellation.ts) share. */
export interface LifecycleContext {
  db: Db;
  queues: LifecycleQueues;
  logger: Logger;
  creations: Pipelines["creations"];
  warn: Pipelines["warn"];
  /** Settles a run from one of `from` as `decision` says; null when it was not in one of them. */
  settle(
    run: { id: string; accountId: string; modelId: string; reservedTokens: number },
    from: readonly RunStatus[],
    decision: SettlementDecision,
    at: Date,
  ): Promise<SettledRun | null>;
}

export function createRunLifecycle({
  db,
  queues,
  logger,
  groupCommit: settings,
}: LifecycleDeps): RunLifecycle {
  const pipelines = createPipelines({
    db,
    queues,
    logger,
    groupCommit: settings,
  });
  const { creations, starts, settlements, warn } = pipelines;

  async function settle(
    run: { id: string; accountId: string; modelId: string; reservedTokens: number },
    from: readonly RunStatus[],
    decision: SettlementDecision,
    at: Date,
    startedAt?: Date,
    lane: TransitionLane = "prompt",
  ): Promise<SettledRun | null> {
    const answer = await settlements.submit({
      runId: run.id,
      accountId: run.accountId,
      lane,
      ...planSettlement(run, from, decision, at),
      ...(startedAt && { start: { at: startedAt, ...startedBodies(run, startedAt) } }),
    });
    if (isError(answer)) throw answer.error;
    return answer;
  }

  /** What a run's outcome settles to: a completed run is charged for the units it made. */
  const decide = (run: RunPrice, outcome: Exclude<RunOutcome, { to: "TIMEOUT" }>): SettlementDecision =>
    outcome.to === "COMPLETED"
      ? {
          to: "COMPLETED",
          output: outcome.output,
          unitsCompleted: Math.min(outcome.units, run.unitsRequested),
          charge: runCharge(run, outcome.units),
        }
      : outcome;

  const ctx: LifecycleContext = { db, queues, logger, creations, warn, settle };
  return {
    create: (command) => createRun(ctx, command),
    createForLine: (command, line) => createRun(ctx, command, line),

    async start(runId, lane = "prompt") {
      const started = await starts.submit({ runId, lane });
      if (!started) return null;
      const t0 = performance.now();
      const base = started.dbNow.getTime();
      return { ...started, now: () => new Date(base + Math.round(performance.now() - t0)) };
    },

    finish(run, outcome, lane) {
      const decision =
        outcome.to === "TIMEOUT" ? timeoutDecision(run.executionTimeoutMs) : decide(run, outcome);
      return settle(run, ["EXECUTING"], decision, run.now(), undefined, lane);
    },

    finishInstant(run, startedAt, outcome) {
      const at = new Date(Math.max(Date.now(), startedAt.getTime()));
      return settle(run, ["QUEUED"], decide(run, outcome), at, startedAt);
    },

    cancel(owner, runId) {
      return cancelRun(ctx, () => findRunForAccount(db, runId, owner.accountId, owner.mode), runId, {
        stop: true,
      });
    },

    cancelAtDeadline(runId) {
      return cancelRun(ctx, () => findRun(db, runId), runId, {
        stop: true,
        reason: (run) => ({
          code: DEADLINE_CANCEL_CODE,
          message: `The run was canceled at its Cancel-After deadline (${run.cancelAt?.toISOString()}).`,
        }),
      });
    },

    async canceledByModel(runId) {
      const result = await cancelRun(ctx, () => findRun(db, runId), runId, { stop: false });
      return result.kind === "canceled";
    },

    timeOut(run) {
      return settle(run, ["EXECUTING"], timeoutDecision(run.executionTimeoutMs), new Date());
    },

    drain: pipelines.drain,
  };
}
