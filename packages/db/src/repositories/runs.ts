import { ApiError, ledgerEffect, newId, type Mode, type RunErrorCode, type RunStatus } from "@svc/core";
import type { Db } from "../client.js";
import { Prisma, type Run } from "../generated/prisma/client.js";
import { appendLedger } from "./accounts.js";
import { recordRunDeliveries } from "./deliveries.js";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface NewRun {
  accountId: string;
  apiKeyId: string;
  mode: Mode;
  modelId: string;
  input: Record<string, unknown>;
  webhookUrl: string | null;
  unitsRequested: number;
  estimatedTokens: number;
  idempotencyKey: string | null;
  requestHash: string | null;
}

export type CreatedRunRecord = Pick<Run, "id" | "modelId" | "mode" | "estimatedTokens" | "createdAt">;

export interface CreatedRun {
  run: CreatedRunRecord;
  /** True when an earlier run with the same Idempotency-Key and body was returned instead. */
  replayed: boolean;
}

async function findReplay(db: Db, data: NewRun): Promise<Run | null> {
  if (!data.idempotencyKey) return null;
  const existing = await db.run.findUnique({
    where: {
      accountId_mode_idempotencyKey: {
        accountId: data.accountId,
        mode: data.mode,
        idempotencyKey: data.idempotencyKey,
      },
    },
  });
  if (!existing) return null;
  if (Date.now() - existing.createdAt.getTime() > IDEMPOTENCY_WINDOW_MS) {
    // Past the window the key is free again: the old run keeps its data but gives up the key.
    await db.run.updateMany({
      where: { id: existing.id, idempotencyKey: data.idempotencyKey },
      data: { idempotencyKey: null },
    });
    return null;
  }
  if (existing.requestHash !== data.requestHash) {
    throw new ApiError(
      "IDEMPOTENCY_KEY_REUSED",
      "This Idempotency-Key was used with a different request in the last 24 hours.",
    );
  }
  return existing;
}

function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  return (
    error.code === "P2002" ||
    (error.code === "P2010" && /23505|unique/i.test(JSON.stringify(error.meta ?? {}) + error.message))
  );
}

/**
 * Creates a run in one SQL statement, so the account row is locked for a single round trip:
 * reserve the tokens with a conditional UPDATE (available never below zero), insert the run only
 * if that reservation happened (or nothing had to be reserved), and append the RESERVE entry.
 * An Idempotency-Key is checked first; a concurrent twin loses on the unique index and replays.
 */
export async function createRun(db: Db, data: NewRun): Promise<CreatedRun> {
  const replay = await findReplay(db, data);
  if (replay) return { run: replay, replayed: true };
  const reserve = data.mode === "live" ? data.estimatedTokens : 0;
  const effect = ledgerEffect("RESERVE", reserve);
  const runId = newId("run");
  let rows: { created_at: Date }[];
  try {
    rows = await db.$queryRaw<{ created_at: Date }[]>`
      WITH reserve AS (
        UPDATE accounts SET balance = balance + ${effect.balanceDelta}, reserved = reserved + ${effect.reservedDelta}
        WHERE id = ${data.accountId} AND ${reserve}::int > 0 AND balance - reserved >= ${reserve}::int
        RETURNING id
      ), created AS (
        INSERT INTO runs (id, account_id, api_key_id, mode, model_id, input, webhook_url, units_requested,
                          estimated_tokens, reserved_tokens, idempotency_key, request_hash)
        SELECT ${runId}, ${data.accountId}, ${data.apiKeyId}, ${data.mode}::"Mode", ${data.modelId},
               ${JSON.stringify(data.input)}::jsonb, ${data.webhookUrl}, ${data.unitsRequested}, ${data.estimatedTokens},
               ${reserve}::int, ${data.idempotencyKey}, ${data.requestHash}
        WHERE ${reserve}::int = 0 OR EXISTS (SELECT 1 FROM reserve)
        RETURNING id, created_at
      ), ledger AS (
        INSERT INTO ledger_entries (id, account_id, run_id, kind, amount, balance_delta, reserved_delta)
        SELECT ${newId("led")}, ${data.accountId}, created.id, 'RESERVE', ${reserve}::int, ${effect.balanceDelta}::int, ${effect.reservedDelta}::int
        FROM created WHERE ${reserve}::int > 0
      )
      SELECT created_at FROM created`;
  } catch (error) {
    if (data.idempotencyKey && isUniqueViolation(error)) {
      const twin = await findReplay(db, data);
      if (twin) return { run: twin, replayed: true };
    }
    throw error;
  }
  const [row] = rows;
  if (!row)
    throw new ApiError(
      "INSUFFICIENT_TOKENS",
      `This run needs ${reserve} tokens, more than the account has available.`,
    );
  return {
    run: {
      id: runId,
      modelId: data.modelId,
      mode: data.mode,
      estimatedTokens: data.estimatedTokens,
      createdAt: row.created_at,
    },
    replayed: false,
  };
}

export function findRunForAccount(db: Db, runId: string, accountId: string, mode: Mode) {
  return db.run.findFirst({ where: { id: runId, accountId, mode } });
}

/** The run with what the worker needs to execute it. */
export function findRunWithModel(db: Db, runId: string) {
  return db.run.findUnique({ where: { id: runId }, include: { model: true } });
}

/**
 * QUEUED -> EXECUTING, or an EXECUTING run taken over after its worker died (attempts + 1).
 * started_at and the deadline are set once, at the first start, from the database clock.
 * False when the run is already finished or canceled: there is nothing to execute.
 */
export async function startRun(db: Db, runId: string): Promise<boolean> {
  const updated = await db.$executeRaw`
    UPDATE runs r SET
      status = 'EXECUTING',
      started_at = COALESCE(r.started_at, now()),
      deadline_at = COALESCE(r.deadline_at, now() + m.execution_timeout_ms * interval '1 millisecond'),
      attempts = r.attempts + 1
    FROM models m
    WHERE r.id = ${runId} AND m.id = r.model_id AND r.status IN ('QUEUED', 'EXECUTING')`;
  return updated > 0;
}

export interface Settled {
  run: Run;
  /** Deliveries recorded with the transition; the caller enqueues them (the sweeper backs it up). */
  deliveryIds: string[];
}

export type Settlement =
  | {
      to: "COMPLETED";
      output: Record<string, unknown>;
      unitsCompleted: number;
      charge: (reserved: number) => number;
    }
  | { to: "FAILED"; errorCode: RunErrorCode; errorMessage: string }
  | { to: "CANCELED"; charge: (reserved: number) => number };

/**
 * Moves a run from one of `from` to a terminal status and settles its reservation in the same
 * transaction: CHARGE what is owed, RELEASE the rest. The status update is conditional, so of
 * two concurrent settlements (worker completing, client canceling) exactly one wins; the other
 * gets null and changes nothing. UNIQUE (run_id, kind) on the ledger backs this up. The event's
 * deliveries are recorded in the same transaction: no finished run without its deliveries.
 */
export async function settleRun(
  db: Db,
  runId: string,
  from: RunStatus[],
  settlement: Settlement,
): Promise<Settled | null> {
  return db.$transaction(async (tx) => {
    const current = await tx.run.findUnique({
      where: { id: runId },
      select: { accountId: true, reservedTokens: true },
    });
    if (!current) return null;
    const reserved = current.reservedTokens;
    const charge =
      settlement.to === "FAILED" ? 0 : Math.min(reserved, Math.max(0, settlement.charge(reserved)));
    const now = Prisma.sql`now()`;
    const fields =
      settlement.to === "COMPLETED"
        ? Prisma.sql`completed_at = ${now}, output = ${JSON.stringify(settlement.output)}::jsonb, units_completed = ${settlement.unitsCompleted}`
        : settlement.to === "FAILED"
          ? Prisma.sql`completed_at = ${now}, error_code = ${settlement.errorCode}, error_message = ${settlement.errorMessage}`
          : Prisma.sql`canceled_at = ${now}`;
    const updated = await tx.$executeRaw`
      UPDATE runs SET status = ${settlement.to}::"RunStatus", reserved_tokens = 0, tokens_charged = ${charge}, ${fields}
      WHERE id = ${runId} AND status::text IN (${Prisma.join(from)}) AND reserved_tokens = ${reserved}`;
    if (updated === 0) return null;
    if (charge > 0)
      await appendLedger(tx, { accountId: current.accountId, kind: "CHARGE", amount: charge, runId });
    if (reserved - charge > 0)
      await appendLedger(tx, {
        accountId: current.accountId,
        kind: "RELEASE",
        amount: reserved - charge,
        runId,
      });
    const run = await tx.run.findUniqueOrThrow({ where: { id: runId } });
    return { run, deliveryIds: await recordRunDeliveries(tx, run) };
  });
}

export interface RunListFilter {
  accountId: string;
  mode: Mode;
  modelId?: string;
  status?: RunStatus;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Position after which to continue: the last run of the previous page. */
  after?: { createdAt: Date; id: string };
  limit: number;
}

/** Newest first, keyset-paginated on (created_at, id) so pages never skip or repeat a run. */
export function listRuns(db: Db, f: RunListFilter) {
  return db.run.findMany({
    where: {
      accountId: f.accountId,
      mode: f.mode,
      ...(f.modelId && { modelId: f.modelId }),
      ...(f.status && { status: f.status }),
      createdAt: {
        ...(f.createdAfter && { gt: f.createdAfter }),
        ...(f.createdBefore && { lt: f.createdBefore }),
      },
      ...(f.after && {
        OR: [
          { createdAt: { lt: f.after.createdAt } },
          { createdAt: f.after.createdAt, id: { lt: f.after.id } },
        ],
      }),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: f.limit,
  });
}

/** QUEUED runs created before `olderThan`: candidates for re-enqueueing by the sweeper. */
export function queuedRunsBefore(db: Db, olderThan: Date, limit = 500) {
  return db.run.findMany({
    where: { status: "QUEUED", createdAt: { lt: olderThan } },
    orderBy: { createdAt: "asc" },
    select: { id: true },
    take: limit,
  });
}

/** EXECUTING runs whose deadline has passed. */
export function overdueRuns(db: Db, now: Date, limit = 500) {
  return db.run.findMany({
    where: { status: "EXECUTING", deadlineAt: { lt: now } },
    select: { id: true },
    take: limit,
  });
}
