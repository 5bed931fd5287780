// The run lifecycle's pipelines: each transition (creation, start, settlement) is group-committed
// (the runs that arrive within a short window are applied in one statement, each caller getting
// its own answer, exactly as if they had been applied one by one), and what it commits is handed
// to the queues and the run events afterwards. The command API (lifecycle.ts) submits to them.
// A start or settlement in the `patient` lane, one that holds up nothing (a batch item's start
// whose work is on its server already, its settlement once its place is free), waits longer for
// company (GROUP_COMMIT_BATCH_WINDOW_MS); in the same queue as the prompt ones, which take it along.
import {
  EVENT_VIEW_MAX_BYTES,
  groupCommit,
  presentRun,
  type GroupCommit,
  type RecordedEvent,
  type SettlementPlan,
} from "@svc/core";
import {
  insertRuns,
  settleRuns,
  sqlPool,
  startRuns,
  type InsertOutcome,
  type RunRow,
  type SettledRun,
  type StartedRun,
} from "@svc/db";
import type { AdmittedRun, LifecycleDeps } from "./lifecycle.js";

/**
 * A created run's answer carries its admission (its job or queue entry, and its Cancel-After
 * deadline): the creator answers once it is done, but the account's next batch does not wait for it.
 */
export type InsertAnswer =
  | Exclude<InsertOutcome, { kind: "created" }>
  | (Extract<InsertOutcome, { kind: "created" }> & { admitted: Promise<unknown> })
  | { kind: "error"; error: unknown };
export type SettleAnswer = SettledRun | null | { kind: "error"; error: unknown };

export const isError = (a: unknown): a is { kind: "error"; error: unknown } =>
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

/**
 * How long a transition may wait for company: `prompt` (the usual window), or `patient` when
 * nothing waits for its answer but the run's own record (GROUP_COMMIT_BATCH_WINDOW_MS).
 */
export type TransitionLane = "prompt" | "patient";

/** A run's start, and its lane. */
export interface StartRequest {
  runId: string;
  lane: TransitionLane;
}

/** A run's settlement, with the account whose row it moves, and its lane (default prompt). */
export type Settlement = SettlementPlan & { runId: string; accountId: string; lane?: TransitionLane };

/** A run to insert, with how it is admitted once created. */
export type NewRun = RunRow & { admission: Omit<AdmittedRun, "runId" | "createdAt"> };

export interface Pipelines {
  creations: GroupCommit<NewRun, InsertAnswer>;
  starts: GroupCommit<StartRequest, StartedRun | null>;
  settlements: GroupCommit<Settlement, SettleAnswer>;
  /** A logger for work the sweeper will redo when it failed. */
  warn(what: string, ids: Record<string, readonly string[] | string>): (error: unknown) => void;
  /** Resolves when every transition submitted so far is committed and its events sent. */
  drain(): Promise<void>;
}

/** What the pipelines share: the pool, the queues, and the work they leave running behind them. */
interface PipelineContext {
  pool: ReturnType<typeof sqlPool>;
  queues: LifecycleDeps["queues"];
  settings: LifecycleDeps["groupCommit"];
  background: Background;
}

/**
 * Work done after a transition commits, not awaited by its caller (a worker starts executing
 * without waiting for Redis): run events in the order of the transitions (one connection keeps
 * it), deliveries enqueued. A failure is logged: the sweeper (or a waiting client's read of the
 * stored state) makes up for it. drain() waits for what is under way.
 */
class Background {
  private readonly running = new Set<Promise<unknown>>();
  constructor(private readonly logger: LifecycleDeps["logger"]) {}

  add(work: Promise<unknown>) {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  /** A logger for work the sweeper will redo when it failed. */
  warn = (what: string, ids: Record<string, readonly string[] | string>) => (error: unknown) =>
    this.logger.warn(`${what} failed; the sweeper will do it`, { ...ids, error: (error as Error).message });

  recordEvents(queues: LifecycleDeps["queues"], events: RecordedEvent[]) {
    this.add(
      queues.recordEvents(events).catch((error: unknown) =>
        this.logger.warn("recording run events failed; waiting clients read the stored state", {
          run_ids: events.map((e) => e.runId),
          error: (error as Error).message,
        }),
      ),
    );
  }

  deliver(queues: LifecycleDeps["queues"], deliveryIds: string[]) {
    if (deliveryIds.length)
      this.add(
        queues
          .enqueueDeliveries(deliveryIds)
          .catch(this.warn("enqueue of deliveries", { delivery_ids: deliveryIds })),
      );
  }

  async drain() {
    await Promise.all([...this.running]);
  }
}

/** One at a time, each with its own answer: for a batch that failed as a whole. */
async function oneByOne<I, A>(
  items: readonly I[],
  apply: (item: I) => Promise<A>,
): Promise<(A | { kind: "error"; error: unknown })[]> {
  const answers: (A | { kind: "error"; error: unknown })[] = [];
  for (const item of items)
    answers.push(await apply(item).catch((error: unknown) => ({ kind: "error" as const, error })));
  return answers;
}

/**
 * The batch's rows inserted, each with its answer. One run must not fail the others (a twin that
 * won a race elsewhere, a bad value): a batch that fails as a whole is inserted one by one. An
 * account (or key budget) that could not cover the batch's total may still cover some of its
 * runs: those are retried one at a time, in order, as if the batch had never formed.
 */
async function insertBatch(ctx: PipelineContext, rows: readonly NewRun[]) {
  // account.balance_low deliveries recorded by the reservations of this batch.
  const alerts: string[] = [];
  const insert = async (batch: readonly NewRun[]) => {
    const { outcomes, deliveryIds } = await insertRuns(ctx.pool, batch);
    alerts.push(...deliveryIds);
    return outcomes;
  };
  let answers: (InsertOutcome | { kind: "error"; error: unknown })[];
  try {
    answers = await insert(rows);
  } catch (error) {
    if (rows.length === 1) throw error;
    answers = await oneByOne(rows, async (r) => (await insert([r]))[0]!);
  }
  const reserving = new Map<string, number>();
  for (const r of rows) if (r.reserve > 0) reserving.set(r.accountId, (reserving.get(r.accountId) ?? 0) + 1);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const kind = answers[i]!.kind;
    if ((kind === "unreserved" || kind === "over_budget") && reserving.get(row.accountId)! > 1)
      answers[i] = await insert([row]).then(
        (a) => a[0]!,
        (error: unknown) => ({ kind: "error" as const, error }),
      );
  }
  return { answers, alerts };
}

/**
 * What follows the creation of runs: their QUEUED events first, on the same connection (no run
 * can start before its event; runs of unlimited models join the queue index by creation time, the
 * others' place is the scheduler's), then their admission (a job or a queue entry) and their
 * Cancel-After deadlines. Resolves once they are admitted.
 */
function admit(ctx: PipelineContext, made: { row: NewRun; createdAt: Date }[]): Promise<unknown> {
  const { queues, background } = ctx;
  background.recordEvents(
    queues,
    made.map(({ row, createdAt }) => ({
      runId: row.id,
      modelId: row.modelId,
      event: { type: "status", status: "QUEUED", at: createdAt.toISOString() },
      ...(row.admission.pool === null && { queuedAt: createdAt.getTime() }),
    })),
  );
  const deadlines = made.flatMap(({ row }) => (row.cancelAt ? [{ runId: row.id, at: row.cancelAt }] : []));
  const admitted = Promise.all([
    queues
      .admitRuns(made.map(({ row, createdAt }) => ({ runId: row.id, createdAt, ...row.admission })))
      .catch(background.warn("enqueue", { run_ids: made.map(({ row }) => row.id) })),
    deadlines.length &&
      queues
        .scheduleDeadlines(deadlines)
        .catch(background.warn("scheduling Cancel-After", { run_ids: deadlines.map((d) => d.runId) })),
  ]);
  background.add(admitted);
  return admitted;
}

function creationsPipeline(ctx: PipelineContext): GroupCommit<NewRun, InsertAnswer> {
  return groupCommit({
    ...ctx.settings,
    // Two rows of one key (or one batch line) in a statement would both pass its check.
    keyOf: (r) =>
      r.idempotencyKey
        ? `${r.accountId}:${r.mode}:${r.idempotencyKey}`
        : r.batchItem && `batch:${r.batchItem.batchId}:${r.batchItem.line}`,
    laneOf: (r) => r.accountId,
    async apply(rows) {
      const { answers, alerts } = await insertBatch(ctx, rows);
      ctx.background.deliver(ctx.queues, alerts);
      const made = rows.flatMap((row, i) => {
        const answer = answers[i]!;
        return answer.kind === "created" ? [{ row, createdAt: answer.createdAt }] : [];
      });
      const admitted = admit(ctx, made);
      return answers.map((a) => (a.kind === "created" ? { ...a, admitted } : a));
    },
  });
}

/** Each item's window: the lane's (the patient lane's never shorter than the prompt one's). */
const windowOfLane =
  (promptMs: number, patientMs: number | undefined) =>
  (item: { lane?: TransitionLane }): number =>
    item.lane === "patient" ? Math.max(promptMs, patientMs ?? promptMs) : promptMs;

function startsPipeline(ctx: PipelineContext): GroupCommit<StartRequest, StartedRun | null> {
  return groupCommit<StartRequest, StartedRun | null>({
    ...ctx.settings,
    windowOf: windowOfLane(ctx.settings.windowMs, ctx.settings.patientWindowMs),
    keyOf: (r) => r.runId,
    async apply(requests) {
      const ids = requests.map((r) => r.runId);
      const started = await startRuns(ctx.pool, ids);
      const runs = [...started.values()];
      ctx.background.recordEvents(
        ctx.queues,
        runs.map((r) => ({
          runId: r.id,
          modelId: r.modelId,
          event: { type: "status", status: "EXECUTING", at: r.startedAt.toISOString() },
        })),
      );
      ctx.background.deliver(
        ctx.queues,
        runs.flatMap((r) => r.deliveryIds),
      );
      return ids.map((id) => started.get(id) ?? null);
    },
  });
}

/** A settled run's events: an instant run's start (committed with its end) first, then its end. */
function settledEvents({ run, plan }: { run: SettledRun; plan: Settlement }): RecordedEvent[] {
  const start: RecordedEvent[] = plan.start
    ? [
        {
          runId: run.id,
          modelId: run.modelId,
          event: { type: "status" as const, status: "EXECUTING" as const, at: plan.start.at.toISOString() },
        },
      ]
    : [];
  return [
    ...start,
    {
      runId: run.id,
      modelId: run.modelId,
      event: { type: "status", status: run.status, at: plan.at.toISOString(), ...endedView(run, plan) },
      ...(run.status === "COMPLETED" &&
        run.startedAt && { runMs: plan.at.getTime() - run.startedAt.getTime() }),
    },
  ];
}

function settlementsPipeline(ctx: PipelineContext): GroupCommit<Settlement, SettleAnswer> {
  return groupCommit<Settlement, SettleAnswer>({
    ...ctx.settings,
    windowOf: windowOfLane(
      ctx.settings.settleWindowMs ?? ctx.settings.windowMs,
      ctx.settings.patientWindowMs,
    ),
    keyOf: (s) => s.runId,
    laneOf: (s) => s.accountId,
    async apply(plans) {
      let answers: SettleAnswer[];
      try {
        const settled = await settleRuns(ctx.pool, plans);
        answers = plans.map((p) => settled.get(p.runId) ?? null);
      } catch (error) {
        if (plans.length === 1) throw error;
        answers = await oneByOne(plans, async (p) => (await settleRuns(ctx.pool, [p])).get(p.runId) ?? null);
      }
      const settled = answers.flatMap((a, i) => (a && !isError(a) ? [{ run: a, plan: plans[i]! }] : []));
      ctx.background.recordEvents(ctx.queues, settled.flatMap(settledEvents));
      const deliveries = settled.flatMap(({ run }) => run.deliveryIds);
      await ctx.queues
        .enqueueDeliveries(deliveries)
        .catch(ctx.background.warn("enqueue of deliveries", { delivery_ids: deliveries }));
      return answers;
    },
  });
}

export function createPipelines({ db, queues, logger, groupCommit: settings }: LifecycleDeps): Pipelines {
  const background = new Background(logger);
  const ctx: PipelineContext = { pool: sqlPool(db), queues, settings, background };
  const creations = creationsPipeline(ctx);
  const starts = startsPipeline(ctx);
  const settlements = settlementsPipeline(ctx);
  return {
    creations,
    starts,
    settlements,
    warn: background.warn,
    async drain() {
      await Promise.all([creations.drain(), starts.drain(), settlements.drain()]);
      await background.drain();
    },
  };
}
