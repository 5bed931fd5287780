// The run lifecycle: the one place that creates, starts, settles, cancels and times out runs, for
// the API, the worker and the sweeper alike. Each transition is group-committed: the runs that
// arrive within a short window are applied in one statement, and each caller gets its own answer,
// exactly as if the runs had been applied one by one.
import {
  cancelDecision,
  DEADLINE_CANCEL_CODE,
  EVENT_VIEW_MAX_BYTES,
  groupCommit,
  presentRun,
  newId,
  planSettlement,
  poolOf,
  settlementCharge,
  tokensFor,
  type GroupCommit,
  type Mode,
  type Pricing,
  type RecordedEvent,
  type RunErrorCode,
  type RunnerSettings,
  type RunPriority,
  type RunStatus,
  type SettlementDecision,
  type SettlementPlan,
} from "@svc/core";
import {
  findIdempotentRun,
  findModel,
  findRunForAccount,
  insertRuns,
  settleRuns,
  sqlPool,
  startRuns,
  type Db,
  type InsertOutcome,
  findRun,
  type RunRow,
  type SettledRun,
  type StartedRun,
} from "@svc/db";
import type { Logger } from "@svc/logger";

/** A created run handed to the workers: straight away (pool null), or through its pool's queue. */
export interface AdmittedRun {
  runId: string;
  pool: string | null;
  accountId: string;
  createdAt: Date;
  priority: RunPriority;
  weight: number;
  maxConcurrentRuns: number | null;
}

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
  maxBatch: number;
  maxInFlight: number;
}

/** The settings from the service's configuration (GROUP_COMMIT_*). */
export const groupCommitSettings = (config: {
  GROUP_COMMIT_WINDOW_MS: number;
  GROUP_COMMIT_MAX_BATCH: number;
  GROUP_COMMIT_IN_FLIGHT: number;
}): GroupCommitSettings => ({
  windowMs: config.GROUP_COMMIT_WINDOW_MS,
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
  mode: Mode;
  model: { id: string; pricing: Pricing; runner: RunnerSettings };
  /** Its turns among accounts waiting for the same model, and its limit of runs executing at once. */
  account: { weight: number; maxConcurrentRuns: number | null };
  priority: RunPriority;
  /** Validated against the model's schema, defaults applied. */
  input: Record<string, unknown>;
  unitsRequested: number;
  webhookUrl: string | null;
  idempotencyKey: string | null;
  /** Hash of the canonical request, to tell an Idempotency-Key replay from a reuse. */
  requestHash: string | null;
  /** Events the run's own webhook_url receives (core's PER_RUN_EVENTS when the client says none). */
  webhookEvents: readonly string[];
  /** Cancel-After, in ms from now. */
  cancelAfterMs: number | null;
}

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
  | { kind: "key_reused" };

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
  /** QUEUED (or EXECUTING, taken over) -> EXECUTING; null when the run needs no execution. */
  start(runId: string): Promise<ExecutingRun | null>;
  /** Ends an executing run; null when another settlement (a cancel, a time-out) won. */
  finish(run: ExecutingRun, decision: SettlementDecision): Promise<SettledRun | null>;
  cancel(owner: { accountId: string; mode: Mode }, runId: string): Promise<CancelResult>;
  /** Cancel-After: cancels and refunds the run if it has not ended, with the reason in its record. */
  cancelAtDeadline(runId: string): Promise<CancelResult>;
  /** The model server canceled the prediction itself; false when another settlement won. */
  canceledByModel(runId: string): Promise<boolean>;
  /** FAILED/TIMEOUT for an EXECUTING run past its deadline; null when it had ended already. */
  timeOut(run: { id: string; modelId: string; reservedTokens: number }): Promise<SettledRun | null>;
  /** Resolves when every transition submitted so far is committed. */
  drain(): Promise<void>;
}

type InsertAnswer = InsertOutcome | { kind: "error"; error: unknown };
type SettleAnswer = SettledRun | null | { kind: "error"; error: unknown };

const isError = (a: unknown): a is { kind: "error"; error: unknown } =>
  typeof a === "object" && a !== null && (a as { kind?: string }).kind === "error";

/** The ended run's view for its event, so that streams answer without reading it back. */
function endedView(run: SettledRun, plan: SettlementPlan): { view?: Record<string, unknown> } {
  const view = presentRun({
    id: run.id,
    status: run.status,
    modelId: run.modelId,
    mode: "live",
    estimatedTokens: 0,
    tokensCharged: run.tokensCharged,
    output: plan.output ?? null,
    errorCode: plan.errorCode ?? null,
    errorMessage: plan.errorMessage ?? null,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    completedAt: plan.to === "CANCELED" ? null : plan.at,
    canceledAt: plan.to === "CANCELED" ? plan.at : null,
  });
  return JSON.stringify(view).length <= EVENT_VIEW_MAX_BYTES ? { view } : {};
}

export function createRunLifecycle({
  db,
  queues,
  logger,
  groupCommit: settings,
}: LifecycleDeps): RunLifecycle {
  const pool = sqlPool(db);
  const warn = (what: string, ids: Record<string, readonly string[] | string>) => (error: unknown) =>
    logger.warn(`${what} failed; the sweeper will do it`, { ...ids, error: (error as Error).message });
  // Events are sent in the order of the transitions (one connection keeps it) but not awaited by
  // the transition's caller: a worker starts executing without waiting for Redis. drain() waits.
  const background = new Set<Promise<unknown>>();
  const inBackground = (work: Promise<unknown>) => {
    background.add(work);
    void work.finally(() => background.delete(work));
  };
  const recordEvents = (events: RecordedEvent[]) =>
    inBackground(
      queues.recordEvents(events).catch((error: unknown) =>
        logger.warn("recording run events failed; waiting clients read the stored state", {
          run_ids: events.map((e) => e.runId),
          error: (error as Error).message,
        }),
      ),
    );

  /** One at a time, each with its own answer: for a batch that failed as a whole. */
  async function oneByOne<I, A>(
    items: I[],
    apply: (item: I) => Promise<A>,
  ): Promise<(A | { kind: "error"; error: unknown })[]> {
    const answers: (A | { kind: "error"; error: unknown })[] = [];
    for (const item of items)
      answers.push(await apply(item).catch((error: unknown) => ({ kind: "error" as const, error })));
    return answers;
  }

  const creations: GroupCommit<
    RunRow & { admission: Omit<AdmittedRun, "runId" | "createdAt"> },
    InsertAnswer
  > = groupCommit({
    ...settings,
    keyOf: (r) => (r.idempotencyKey ? `${r.accountId}:${r.mode}:${r.idempotencyKey}` : undefined),
    async apply(rows) {
      let answers: InsertAnswer[];
      try {
        answers = await insertRuns(pool, rows);
      } catch (error) {
        // One run must not fail the others (a twin that won a race elsewhere, a bad value).
        if (rows.length === 1) throw error;
        answers = await oneByOne(rows, async (r) => (await insertRuns(pool, [r]))[0]!);
      }
      // An account that could not cover the batch's total may still cover some of its runs:
      // those are retried one at a time, in order, as if the batch had never formed.
      const reserving = new Map<string, number>();
      for (const r of rows)
        if (r.reserve > 0) reserving.set(r.accountId, (reserving.get(r.accountId) ?? 0) + 1);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        if (answers[i]!.kind === "unreserved" && reserving.get(row.accountId)! > 1) {
          answers[i] = await insertRuns(pool, [row]).then(
            (a) => a[0]!,
            (error: unknown) => ({ kind: "error" as const, error }),
          );
        }
      }
      const made = rows.flatMap((row, i) => {
        const answer = answers[i]!;
        return answer.kind === "created" ? [{ row, createdAt: answer.createdAt }] : [];
      });
      const created = made.map(({ row }) => row.id);
      // The QUEUED events go out first, on the same connection: no run can start before its event.
      // Runs of unlimited models join the queue index by creation time; the others' place is the
      // scheduler's.
      recordEvents(
        made.map(({ row, createdAt }) => ({
          runId: row.id,
          modelId: row.modelId,
          event: { type: "status", status: "QUEUED", at: createdAt.toISOString() },
          ...(row.admission.pool === null && { queuedAt: createdAt.getTime() }),
        })),
      );
      const deadlines = made.flatMap(({ row }) =>
        row.cancelAt ? [{ runId: row.id, at: row.cancelAt }] : [],
      );
      await Promise.all([
        queues
          .admitRuns(made.map(({ row, createdAt }) => ({ runId: row.id, createdAt, ...row.admission })))
          .catch(warn("enqueue", { run_ids: created })),
        deadlines.length &&
          queues
            .scheduleDeadlines(deadlines)
            .catch(warn("scheduling Cancel-After", { run_ids: deadlines.map((d) => d.runId) })),
      ]);
      return answers;
    },
  });

  const starts: GroupCommit<string, StartedRun | null> = groupCommit({
    ...settings,
    keyOf: (id) => id,
    async apply(ids) {
      const started = await startRuns(pool, ids);
      const runs = [...started.values()];
      recordEvents(
        runs.map((r) => ({
          runId: r.id,
          modelId: r.modelId,
          event: { type: "status", status: "EXECUTING", at: r.startedAt.toISOString() },
        })),
      );
      const deliveries = runs.flatMap((r) => r.deliveryIds);
      if (deliveries.length)
        inBackground(
          queues
            .enqueueDeliveries(deliveries)
            .catch(warn("enqueue of deliveries", { delivery_ids: deliveries })),
        );
      return ids.map((id) => started.get(id) ?? null);
    },
  });

  const settlements: GroupCommit<SettlementPlan & { runId: string }, SettleAnswer> = groupCommit({
    ...settings,
    keyOf: (s) => s.runId,
    async apply(plans) {
      let answers: SettleAnswer[];
      try {
        const settled = await settleRuns(pool, plans);
        answers = plans.map((p) => settled.get(p.runId) ?? null);
      } catch (error) {
        if (plans.length === 1) throw error;
        answers = await oneByOne(plans, async (p) => (await settleRuns(pool, [p])).get(p.runId) ?? null);
      }
      const settled = answers.flatMap((a, i) => (a && !isError(a) ? [{ run: a, plan: plans[i]! }] : []));
      recordEvents(
        settled.map(({ run, plan }) => ({
          runId: run.id,
          modelId: run.modelId,
          event: { type: "status", status: run.status, at: plan.at.toISOString(), ...endedView(run, plan) },
          ...(run.status === "COMPLETED" &&
            run.startedAt && { runMs: plan.at.getTime() - run.startedAt.getTime() }),
        })),
      );
      const deliveries = settled.flatMap(({ run }) => run.deliveryIds);
      await queues
        .enqueueDeliveries(deliveries)
        .catch(warn("enqueue of deliveries", { delivery_ids: deliveries }));
      return answers;
    },
  });

  async function settle(
    run: { id: string; modelId: string; reservedTokens: number },
    from: readonly RunStatus[],
    decision: SettlementDecision,
    at: Date,
  ): Promise<SettledRun | null> {
    const answer = await settlements.submit({ runId: run.id, ...planSettlement(run, from, decision, at) });
    if (isError(answer)) throw answer.error;
    return answer;
  }

  async function replayOf(command: CreateRunCommand): Promise<CreateRunResult | null> {
    const existing = await findIdempotentRun(db, {
      accountId: command.accountId,
      mode: command.mode,
      idempotencyKey: command.idempotencyKey!,
    });
    if (!existing) return null;
    if (existing.requestHash !== command.requestHash) return { kind: "key_reused" };
    return { kind: "replayed", run: existing };
  }

  /**
   * Cancels a queued or executing run, charged for the units it delivered before (their files stay
   * reachable: runs.units_completed, written before a progress report shows them) and refunded the
   * rest; the stored state answers for the others. A report that delivers more between the read
   * and the settlement makes the settlement miss, and the cancel is decided again.
   */
  async function cancelRun(
    read: () => Promise<Awaited<ReturnType<typeof findRun>>>,
    runId: string,
    how: {
      reason?: (run: NonNullable<Awaited<ReturnType<typeof findRun>>>) => { code: string; message: string };
      /** Drop the waiting job and abort the executing worker (not when the model ended the run). */
      stop: boolean;
    },
  ): Promise<CancelResult> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const run = await read();
      if (!run) return { kind: "not_found" };
      switch (cancelDecision(run.status)) {
        case "already_canceled":
          return { kind: "already_canceled", run: { id: run.id, canceledAt: run.canceledAt! } };
        case "not_cancelable":
          return { kind: "not_cancelable", status: run.status };
        case "cancel":
          break;
      }
      const model = await findModel(db, run.modelId);
      const delivered = run.unitsCompleted;
      const decision = {
        to: "CANCELED" as const,
        unitsDelivered: delivered,
        charge: settlementCharge(model!.pricing, delivered, run.reservedTokens),
        ...(how.reason && { reason: how.reason(run) }),
      };
      const at = new Date();
      const settled = await settle(run, ["QUEUED", "EXECUTING"], decision, at);
      if (settled) {
        if (how.stop) await queues.stopRun(runId).catch(warn("stopping the canceled run", { run_id: runId }));
        return { kind: "canceled", run: { id: runId, canceledAt: at } };
      }
      // Lost a race (the run finished, another cancel won, an output was delivered): read again.
    }
    throw new Error(`run ${runId} changed under five cancel attempts`);
  }

  return {
    async create(command) {
      if (command.idempotencyKey) {
        const replay = await replayOf(command);
        if (replay) return replay;
      }
      const estimatedTokens = tokensFor(command.model.pricing, command.unitsRequested);
      const reserve = command.mode === "live" ? estimatedTokens : 0;
      const pool = poolOf(command.model.runner);
      const row: RunRow & { admission: Omit<AdmittedRun, "runId" | "createdAt"> } = {
        admission: {
          pool: pool ? command.model.id : null,
          accountId: command.accountId,
          priority: command.priority,
          weight: command.account.weight,
          maxConcurrentRuns: command.account.maxConcurrentRuns,
        },
        priority: command.priority,
        id: newId("run"),
        accountId: command.accountId,
        apiKeyId: command.apiKeyId,
        mode: command.mode,
        modelId: command.model.id,
        input: command.input,
        webhookUrl: command.webhookUrl,
        unitsRequested: command.unitsRequested,
        estimatedTokens,
        reserve,
        ledgerId: newId("led"),
        idempotencyKey: command.idempotencyKey,
        requestHash: command.requestHash,
        webhookEvents: command.webhookEvents,
        cancelAt: command.cancelAfterMs === null ? null : new Date(Date.now() + command.cancelAfterMs),
      };
      // A key that conflicted but holds no replayable run was freed meanwhile (past its 24 h
      // window): the run is submitted once more, now without a twin.
      for (let attempt = 0; ; attempt++) {
        const answer = await creations.submit(row);
        switch (answer.kind) {
          case "error":
            throw answer.error;
          case "created":
            return {
              kind: "created",
              run: {
                id: row.id,
                modelId: row.modelId,
                mode: row.mode,
                estimatedTokens,
                createdAt: answer.createdAt,
              },
            };
          case "unreserved":
            return { kind: "insufficient", needed: reserve };
          case "conflict": {
            // A twin with the same key was created first (in an earlier batch or elsewhere).
            const replay = await replayOf(command);
            if (replay) return replay;
            if (attempt > 0) throw new Error("an Idempotency-Key keeps conflicting with no run holding it");
          }
        }
      }
    },

    async start(runId) {
      const started = await starts.submit(runId);
      if (!started) return null;
      const t0 = performance.now();
      const base = started.dbNow.getTime();
      return { ...started, now: () => new Date(base + Math.round(performance.now() - t0)) };
    },

    finish(run, decision) {
      return settle(run, ["EXECUTING"], decision, run.now());
    },

    cancel(owner, runId) {
      return cancelRun(() => findRunForAccount(db, runId, owner.accountId, owner.mode), runId, {
        stop: true,
      });
    },

    cancelAtDeadline(runId) {
      return cancelRun(() => findRun(db, runId), runId, {
        stop: true,
        reason: (run) => ({
          code: DEADLINE_CANCEL_CODE,
          message: `The run was canceled at its Cancel-After deadline (${run.cancelAt?.toISOString()}).`,
        }),
      });
    },

    async canceledByModel(runId) {
      const result = await cancelRun(() => findRun(db, runId), runId, { stop: false });
      return result.kind === "canceled";
    },

    timeOut(run) {
      return settle(
        run,
        ["EXECUTING"],
        {
          to: "FAILED",
          errorCode: "TIMEOUT" satisfies RunErrorCode,
          errorMessage: "The run exceeded its execution timeout.",
        },
        new Date(),
      );
    },

    async drain() {
      await Promise.all([creations.drain(), starts.drain(), settlements.drain()]);
      await Promise.all([...background]);
    },
  };
}
