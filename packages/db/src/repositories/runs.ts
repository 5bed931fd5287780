import { ApiError, newId, type Mode, type RunErrorCode, type RunStatus } from "@svc/core";
import type { Db } from "../client.js";
import { Prisma, type Run } from "../generated/prisma/client.js";
import { appendLedger } from "./accounts.js";

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

export interface CreatedRun {
  run: Run;
  /** True when an earlier run with the same Idempotency-Key and body was returned instead. */
  replayed: boolean;
}

async function findReplay(db: Prisma.TransactionClient, data: NewRun): Promise<Run | null> {
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
    await db.run.update({ where: { id: existing.id }, data: { idempotencyKey: null } });
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

/**
 * One transaction: idempotency check, insert the run, reserve its tokens (live mode) with a
 * conditional update so that available tokens never go below zero, ledger RESERVE entry.
 * The run is inserted before the account row is locked, to keep that lock short.
 */
export async function createRun(db: Db, data: NewRun): Promise<CreatedRun> {
  const reserve = data.mode === "live" ? data.estimatedTokens : 0;
  try {
    return await db.$transaction(async (tx) => {
      const replay = await findReplay(tx, data);
      if (replay) return { run: replay, replayed: true };
      const run = await tx.run.create({
        data: {
          id: newId("run"),
          accountId: data.accountId,
          apiKeyId: data.apiKeyId,
          mode: data.mode,
          modelId: data.modelId,
          input: data.input as Prisma.InputJsonObject,
          webhookUrl: data.webhookUrl,
          unitsRequested: data.unitsRequested,
          estimatedTokens: data.estimatedTokens,
          reservedTokens: reserve,
          idempotencyKey: data.idempotencyKey,
          requestHash: data.requestHash,
        },
      });
      if (reserve > 0) {
        const reserved = await appendLedger(
          tx,
          { accountId: data.accountId, kind: "RESERVE", amount: reserve, runId: run.id },
          { requireAvailable: true },
        );
        if (!reserved) {
          throw new ApiError(
            "INSUFFICIENT_TOKENS",
            `This run needs ${reserve} tokens, more than the account has available.`,
          );
        }
      }
      return { run, replayed: false };
    });
  } catch (error) {
    // A concurrent request with the same Idempotency-Key committed first: answer with its run.
    if (
      data.idempotencyKey &&
      error instanceof Prisma.PrismaClientKnownRequestError &&
      error.code === "P2002"
    ) {
      const replay = await findReplay(db, data);
      if (replay) return { run: replay, replayed: true };
    }
    throw error;
  }
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
 * gets null and changes nothing. UNIQUE (run_id, kind) on the ledger backs this up.
 */
export async function settleRun(
  db: Db,
  runId: string,
  from: RunStatus[],
  settlement: Settlement,
): Promise<Run | null> {
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
    return tx.run.findUniqueOrThrow({ where: { id: runId } });
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
