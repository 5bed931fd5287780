// The run lifecycle's pipelines: each transition (creation, start, settlement) is group-committed
// (the runs that arrive within a short window are applied in one statement, each caller getting
// its own answer, exactly as if they had been applied one by one), and what it commits is handed
// to the queues and the run events afterwards. The command API (lifecycle.ts) submits to them.
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

/** A run's settlement, with the account whose row it moves. */
export type Settlement = SettlementPlan & { runId: string; accountId: string };

/** A run to insert, with how it is admitted once created. */
export type NewRun = RunRow & { admission: Omit<AdmittedRun, "runId" | "createdAt"> };

export interface Pipelines {
  creations: GroupCommit<NewRun, InsertAnswer>;
  starts: GroupCommit<string, StartedRun | null>;
  settlements: GroupCommit<Settlement, SettleAnswer>;
  /** A logger for work the sweeper will redo when it failed. */
  warn(what: string, ids: Record<string, readonly string[] | string>): (error: unknown) => void;
  /** Resolves when every transition submitted so far is committed and its events sent. */
  drain(): Promise<void>;
}

export function createPipelines({ db, queues, logger, groupCommit: settings }: LifecycleDeps): Pipelines {
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

  const creations: GroupCommit<NewRun, InsertAnswer> = groupCommit({
    ...settings,
    keyOf: (r) => (r.idempotencyKey ? `${r.accountId}:${r.mode}:${r.idempotencyKey}` : undefined),
    laneOf: (r) => r.accountId,
    async apply(rows) {
      // account.balance_low deliveries recorded by the reservations of this batch.
      const alerts: string[] = [];
      const insert = async (batch: readonly NewRun[]) => {
        const { outcomes, deliveryIds } = await insertRuns(pool, batch);
        alerts.push(...deliveryIds);
        return outcomes;
      };
      let answers: (InsertOutcome | { kind: "error"; error: unknown })[];
      try {
        answers = await insert(rows);
      } catch (error) {
        // One run must not fail the others (a twin that won a race elsewhere, a bad value).
        if (rows.length === 1) throw error;
        answers = await oneByOne(rows, async (r) => (await insert([r]))[0]!);
      }
      // An account (or key budget) that could not cover the batch's total may still cover some of
      // its runs: those are retried one at a time, in order, as if the batch had never formed.
      const reserving = new Map<string, number>();
      for (const r of rows)
        if (r.reserve > 0) reserving.set(r.accountId, (reserving.get(r.accountId) ?? 0) + 1);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const kind = answers[i]!.kind;
        if ((kind === "unreserved" || kind === "over_budget") && reserving.get(row.accountId)! > 1) {
          answers[i] = await insert([row]).then(
            (a) => a[0]!,
            (error: unknown) => ({ kind: "error" as const, error }),
          );
        }
      }
      if (alerts.length)
        inBackground(
          queues.enqueueDeliveries(alerts).catch(warn("enqueue of deliveries", { delivery_ids: alerts })),
        );
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
      const admitted = Promise.all([
        queues
          .admitRuns(made.map(({ row, createdAt }) => ({ runId: row.id, createdAt, ...row.admission })))
          .catch(warn("enqueue", { run_ids: created })),
        deadlines.length &&
          queues
            .scheduleDeadlines(deadlines)
            .catch(warn("scheduling Cancel-After", { run_ids: deadlines.map((d) => d.runId) })),
      ]);
      inBackground(admitted);
      return answers.map((a) => (a.kind === "created" ? { ...a, admitted } : a));
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

  const settlements: GroupCommit<Settlement, SettleAnswer> = groupCommit({
    ...settings,
    windowMs: settings.settleWindowMs ?? settings.windowMs,
    keyOf: (s) => s.runId,
    laneOf: (s) => s.accountId,
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
        settled.flatMap(({ run, plan }): RecordedEvent[] => [
          // An instant run's start, committed with its end: its stream still shows it EXECUTING first.
          ...(plan.start
            ? [
                {
                  runId: run.id,
                  modelId: run.modelId,
                  event: {
                    type: "status" as const,
                    status: "EXECUTING" as const,
                    at: plan.start.at.toISOString(),
                  },
                },
              ]
            : []),
          {
            runId: run.id,
            modelId: run.modelId,
            event: { type: "status", status: run.status, at: plan.at.toISOString(), ...endedView(run, plan) },
            ...(run.status === "COMPLETED" &&
              run.startedAt && { runMs: plan.at.getTime() - run.startedAt.getTime() }),
          },
        ]),
      );
      const deliveries = settled.flatMap(({ run }) => run.deliveryIds);
      await queues
        .enqueueDeliveries(deliveries)
        .catch(warn("enqueue of deliveries", { delivery_ids: deliveries }));
      return answers;
    },
  });

  return {
    creations,
    starts,
    settlements,
    warn,
    async drain() {
      await Promise.all([creations.drain(), starts.drain(), settlements.drain()]);
      await Promise.all([...background]);
    },
  };
}
