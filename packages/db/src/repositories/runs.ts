import type { Mode, RunLane, RunStatus } from "@svc/core";
import { findMany, findOne, type Db } from "../client.js";
import type { Run } from "../generated/prisma/client.js";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * The run created within the last 24 h under this Idempotency-Key, if any. Past the window the
 * key is free again: the old run keeps its data but gives up the key.
 */
export async function findIdempotentRun(
  db: Db,
  key: { accountId: string; mode: Mode; idempotencyKey: string },
): Promise<Run | null> {
  // At most one: the partial unique index on (account_id, mode, idempotency_key) of keyed runs.
  const existing = await db.run.findFirst({ where: key });
  if (!existing) return null;
  if (Date.now() - existing.createdAt.getTime() <= IDEMPOTENCY_WINDOW_MS) return existing;
  await db.run.updateMany({
    where: { id: existing.id, idempotencyKey: key.idempotencyKey },
    data: { idempotencyKey: null },
  });
  return null;
}

/** A run's status read (what clients poll), so it skips Prisma. */
export function findRunForAccount(db: Db, runId: string, accountId: string, mode: Mode) {
  return findOne<Run>(
    db,
    "runs_for_account",
    'SELECT * FROM runs WHERE id = $1 AND account_id = $2 AND mode = $3::"Mode"',
    [runId, accountId, mode],
  );
}

export interface RunListFilter {
  accountId: string;
  mode: Mode;
  modelId?: string;
  /** Runs of any of these models (OpenAI's video list: the models that make videos). */
  modelIds?: readonly string[];
  status?: RunStatus;
  /** The runs of one batch. */
  batchId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Position after which to continue: the last run of the previous page. */
  after?: Position;
  limit: number;
}

/** Newest first, keyset-paginated on (created_at, id) so pages never skip or repeat a run. */
export function listRuns(db: Db, f: RunListFilter) {
  return db.run.findMany({
    where: {
      accountId: f.accountId,
      mode: f.mode,
      ...(f.modelId && { modelId: f.modelId }),
      ...(f.modelIds && { modelId: { in: [...f.modelIds] } }),
      ...(f.status && { status: f.status }),
      ...(f.batchId && { batchId: f.batchId }),
      createdAt: {
        ...(f.createdAfter && { gt: f.createdAfter }),
        ...(f.createdBefore && { lt: f.createdBefore }),
      },
      ...pastPosition(f.after),
    },
    orderBy: NEWEST_FIRST,
    take: f.limit,
  });
}

// The sweeper's reads (below) go through node-postgres like the hot path: a worker that never
// touches Prisma's client never loads its query compiler (~70 MB of RSS).

/** A run as the sweeper reads it: what putting it back in line needs. */
interface SweptRun {
  id: string;
  modelId: string;
  accountId: string;
  createdAt: Date;
  priority: RunLane;
  runner: unknown;
  weight: number;
  maxConcurrentRuns: number | null;
  keyId: string;
  keyMaxConcurrentRuns: number | null;
}
const SWEPT_RUNS = `SELECT r.id, r.model_id, r.account_id, r.created_at, r.priority, m.runner, a.weight, a.max_concurrent_runs,
            r.api_key_id AS key_id, k.max_concurrent_runs AS key_max_concurrent_runs
     FROM runs r JOIN models m ON m.id = r.model_id JOIN accounts a ON a.id = r.account_id
     JOIN api_keys k ON k.id = r.api_key_id`;

/**
 * Runs in `status` since before `before` (QUEUED: made, EXECUTING: started), the oldest first: the
 * sweeper's candidates for a lost job or a lost place.
 */
export function runsToSweep(db: Db, status: "QUEUED" | "EXECUTING", before: Date, limit = 500) {
  const since = status === "QUEUED" ? "created_at" : "started_at";
  return findMany<SweptRun>(
    db,
    `runs_${status.toLowerCase()}_before`,
    `${SWEPT_RUNS} WHERE r.status = '${status}' AND r.${since} < $1 ORDER BY r.${since} LIMIT $2`,
    [before, limit],
  );
}

/** EXECUTING runs whose deadline has passed, with what their settlement needs. */
export function overdueRuns(db: Db, now: Date, limit = 500) {
  return findMany<{
    id: string;
    accountId: string;
    modelId: string;
    reservedTokens: number;
    executionTimeoutMs: number;
  }>(
    db,
    "runs_overdue",
    `SELECT r.id, r.account_id, r.model_id, r.reserved_tokens, m.execution_timeout_ms FROM runs r JOIN models m ON m.id = r.model_id
     WHERE r.status = 'EXECUTING' AND r.deadline_at < $1 LIMIT $2`,
    [now, limit],
  );
}

/** A run by id alone: for the service's own transitions (a Cancel-After deadline), never for a client. */
export function findRun(db: Db, runId: string) {
  return findOne<Run>(db, "runs_by_id", "SELECT * FROM runs WHERE id = $1", [runId]);
}

/** Active runs whose Cancel-After deadline has passed (their deadline job was lost). */
export function runsPastCancelAt(db: Db, now: Date, limit = 500) {
  return findMany<{ id: string }>(
    db,
    "runs_past_cancel_at",
    "SELECT id FROM runs WHERE status IN ('QUEUED', 'EXECUTING') AND cancel_at < $1 LIMIT $2",
    [now, limit],
  );
}

/** Status and model of each of these runs that exists. */
export async function runStatuses(db: Db, ids: string[]) {
  const rows = await findMany<{ id: string; status: RunStatus; modelId: string }>(
    db,
    "runs_statuses",
    "SELECT id, status, model_id FROM runs WHERE id = ANY($1::text[])",
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { status: r.status, modelId: r.modelId }]));
}
