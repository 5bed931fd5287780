// Batches (issue #61): the batch row, its items (one per line), and the reads a feed pass and a
// results file make. The worker's reads go through node-postgres (findMany), as the sweeper's do,
// so that a worker never loads Prisma's query compiler for them.
import {
  batchCountsOf,
  newId,
  type BatchCounts,
  type BatchItemResult,
  type BatchLineError,
  type BatchTally,
  type Mode,
  type RunApi,
} from "@svc/core";
import { findMany, sqlPool, type Db } from "../client.js";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";
import type { Owner } from "./webhooks.js";

export type { Batch } from "../generated/prisma/client.js";

export const newBatchId = () => newId("batch");

export interface NewBatch {
  id: string;
  apiKeyId: string;
  modelId: string;
  api: RunApi;
  endpoint: string | null;
  inputFileId: string | null;
  webhookUrl: string | null;
  metadata: Record<string, string> | null;
  discountPercent: number;
  expiresAt: Date;
}

/** A batch made, validating: its lines are added with addBatchItems, then it opens. */
export function createBatchRow(db: Db, owner: Owner, batch: NewBatch) {
  return db.batch.create({
    data: { ...batch, ...owner, status: "validating", metadata: batch.metadata ?? undefined },
  });
}

/** A line as it is stored: an item (its input, checked) or why it is none. */
export type NewBatchItem =
  | { line: number; customId: string | null; input: Record<string, unknown>; weights: readonly string[] }
  | { line: number; customId: string | null; error: BatchLineError };

/** Adds a chunk of lines (one statement), pending or invalid. */
export async function addBatchItems(db: Db, batchId: string, items: readonly NewBatchItem[]) {
  if (!items.length) return;
  await sqlPool(db).query({
    name: "batch_items_add",
    text: `INSERT INTO batch_items (batch_id, line, custom_id, input, weights, state, error)
           SELECT $1, line, custom_id, input, weights, state, error
           FROM jsonb_to_recordset($2::jsonb) AS t(line int, custom_id text, input jsonb, weights text[], state text, error jsonb)
           ON CONFLICT DO NOTHING`,
    values: [
      batchId,
      JSON.stringify(
        items.map((i) =>
          "error" in i
            ? { line: i.line, custom_id: i.customId, state: "invalid", error: i.error, weights: [] }
            : { line: i.line, custom_id: i.customId, input: i.input, weights: i.weights, state: "pending" },
        ),
      ),
    ],
  });
}

/** A validated batch opens for its items to be admitted (in_progress), with its line counts. */
export function openBatch(db: Db, id: string, total: number, invalid: number) {
  return db.batch.update({
    where: { id },
    data: { status: "in_progress", total, invalid, inProgressAt: new Date() },
  });
}

/** A batch by id, whoever owns it (an operator's view). */
export function findBatchById(db: Db, id: string) {
  return db.batch.findUnique({ where: { id } });
}

/** The owner's batch. */
export function findBatch(db: Db, owner: Owner, id: string) {
  return db.batch.findFirst({ where: { id, ...owner } });
}

/** Every account's batches for an operator, newest first (one account's, when it says). */
export function listAllBatches(db: Db, accountId?: string, limit = 200) {
  return db.batch.findMany({ where: accountId ? { accountId } : {}, orderBy: NEWEST_FIRST, take: limit });
}

/** The owner's batches, newest first (those made through one API style, when `api` says). */
export function listBatches(db: Db, owner: Owner, limit: number, after?: Position, api?: RunApi) {
  return db.batch.findMany({
    where: { ...owner, ...(api && { api }), ...pastPosition(after) },
    orderBy: NEWEST_FIRST,
    take: limit,
  });
}

/** The tally's columns (core's BatchTally), as every read of it selects them. */
const TALLY = `b.total, b.invalid, b.admitted, b.dropped, b.runs_completed, b.runs_failed, b.tokens_charged`;

/** Each batch's items by where they stand, from their rows' tallies (one statement for all of them). */
export async function batchCounts(db: Db, ids: readonly string[]): Promise<Map<string, BatchCounts>> {
  if (!ids.length) return new Map();
  const rows = await findMany<{ id: string } & BatchTally>(
    db,
    "batch_counts",
    `SELECT b.id, ${TALLY} FROM batches b WHERE b.id = ANY($1)`,
    [ids],
  );
  const empty: BatchCounts = { total: 0, pending: 0, running: 0, completed: 0, failed: 0, tokensCharged: 0 };
  const byId = new Map(rows.map((r) => [r.id, batchCountsOf(r)]));
  return new Map(ids.map((id) => [id, byId.get(id) ?? empty]));
}

/** An open batch as a feed pass sees it: whose, which model and key, how many lines wait. */
export interface OpenBatch {
  id: string;
  accountId: string;
  mode: Mode;
  apiKeyId: string;
  modelId: string;
  status: string;
  discountPercent: number;
  expiresAt: Date;
  createdAt: Date;
  pausedReason: string | null;
  pending: number;
  /** Its model's runner settings (where its places are). */
  runner: unknown;
  metadata: Record<string, string> | null;
}

/** Batches a feed pass looks after: admitting, finishing, canceling or expiring (oldest first). */
export function openBatches(db: Db) {
  return findMany<OpenBatch>(
    db,
    "batches_open",
    `SELECT b.id, b.account_id, b.mode, b.api_key_id, b.model_id, b.status, b.discount_percent, b.expires_at,
            b.created_at, b.paused_reason, m.runner, b.metadata,
            -- Its lines neither admitted nor ended: exactly those in state pending.
            b.total - b.invalid - b.admitted - b.dropped AS pending
     FROM batches b JOIN models m ON m.id = b.model_id
     WHERE b.status IN ('in_progress', 'finalizing', 'canceling')
     ORDER BY b.created_at, b.id`,
    [],
  );
}

/** Batch items admitted and not ended, per model (what batches hold of each model's places). */
export async function batchesInFlight(db: Db): Promise<Map<string, number>> {
  const rows = await findMany<{ modelId: string; n: number }>(
    db,
    "batches_in_flight",
    `SELECT b.model_id, count(*)::int AS n
     FROM batches b JOIN runs r ON r.batch_id = b.id
     WHERE b.status IN ('in_progress', 'finalizing', 'canceling') AND r.status IN ('QUEUED', 'EXECUTING')
     GROUP BY b.model_id`,
    [],
  );
  return new Map(rows.map((r) => [r.modelId, r.n]));
}

/** What admitting a batch's items needs now: its key (still usable?), account and model. */
export function batchAdmission(db: Db, batchId: string) {
  return findMany<{
    keyUsable: boolean;
    allowedModels: string[];
    keyMaxConcurrentRuns: number | null;
    weight: number;
    maxConcurrentRuns: number | null;
    modelStatus: string;
    pricing: unknown;
    runner: unknown;
  }>(
    db,
    "batch_admission",
    `SELECT (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS key_usable,
            k.allowed_models, k.max_concurrent_runs AS key_max_concurrent_runs, a.weight, a.max_concurrent_runs,
            m.status AS model_status, m.pricing, m.runner
     FROM batches b JOIN api_keys k ON k.id = b.api_key_id JOIN accounts a ON a.id = b.account_id
     JOIN models m ON m.id = b.model_id WHERE b.id = $1`,
    [batchId],
  ).then((rows) => rows[0] ?? null);
}

/** Open batches' items per model: waiting to be admitted, running, ended (the batch lane's metrics). */
export async function batchItemsByModel(db: Db) {
  const rows = await findMany<{ modelId: string } & BatchTally>(
    db,
    "batch_items_by_model",
    `SELECT b.model_id, ${TALLY} FROM batches b WHERE b.status IN ('in_progress', 'finalizing', 'canceling')`,
    [],
  );
  const byModel = new Map<string, { modelId: string; pending: number; running: number; ended: number }>();
  for (const row of rows) {
    const c = batchCountsOf(row);
    const m = byModel.get(row.modelId) ?? { modelId: row.modelId, pending: 0, running: 0, ended: 0 };
    m.pending += c.pending;
    m.running += c.running;
    m.ended += c.completed + c.failed;
    byModel.set(row.modelId, m);
  }
  return [...byModel.values()];
}

/** The next lines waiting to be admitted, in order. */
export function pendingItems(db: Db, batchId: string, limit: number) {
  return findMany<{
    line: number;
    customId: string | null;
    input: Record<string, unknown>;
    weights: string[];
  }>(
    db,
    "batch_items_pending",
    `SELECT line, custom_id, input, weights FROM batch_items
     WHERE batch_id = $1 AND state = 'pending' ORDER BY line LIMIT $2`,
    [batchId, limit],
  );
}

/** Ends lines that wait (all of them, or those listed) without a run: canceled, expired or refused. */
export async function endPendingItems(
  db: Db,
  batchId: string,
  state: "canceled" | "expired" | "refused",
  error: BatchLineError,
  lines?: readonly number[],
) {
  const rows = await findMany<{ ended: number }>(
    db,
    lines ? "batch_items_end_some" : "batch_items_end",
    `WITH ended AS (
       UPDATE batch_items SET state = $2, error = $3
       WHERE batch_id = $1 AND state = 'pending'${lines ? " AND line = ANY($4)" : ""} RETURNING line
     ), counted AS (
       UPDATE batches SET dropped = dropped + (SELECT count(*) FROM ended) WHERE id = $1
     )
     SELECT count(*)::int AS ended FROM ended`,
    [batchId, state, JSON.stringify(error), ...(lines ? [lines] : [])],
  );
  return rows[0]?.ended ?? 0;
}

/** A batch's runs that have not ended (to cancel them): QUEUED only, or every open one. */
export function openBatchRuns(db: Db, batchId: string, queuedOnly: boolean) {
  return findMany<{ id: string }>(
    db,
    queuedOnly ? "batch_runs_queued" : "batch_runs_open",
    `SELECT id FROM runs WHERE batch_id = $1 AND status IN (${queuedOnly ? "'QUEUED'" : "'QUEUED', 'EXECUTING'"})`,
    [batchId],
  );
}

/** Moves a batch on if it is still in one of `from` (every change of status is conditional). */
export async function moveBatch(
  db: Db,
  id: string,
  from: readonly string[],
  to: string,
  at: "finalizing_at" | "ended_at" | "canceling_at" | null,
): Promise<boolean> {
  const { rowCount } = await sqlPool(db).query({
    name: `batch_move_${at ?? "none"}`,
    text: `UPDATE batches SET status = $3${at ? `, ${at} = now()` : ""} WHERE id = $1 AND status = ANY($2)`,
    values: [id, from, to],
  });
  return (rowCount ?? 0) > 0;
}

const END_BATCH = `
WITH b AS (
  UPDATE batches SET status = $3, ended_at = now() WHERE id = $1 AND status = ANY($2)
  RETURNING id, account_id, mode, webhook_url
), sent AS (
  INSERT INTO deliveries (id, account_id, mode, endpoint_id, url, event, body, created_at)
  SELECT svc_random_id('whd'), b.account_id, b.mode, NULL, b.webhook_url, $4, replace($5, $6, 'null'), now()
  FROM b WHERE b.webhook_url IS NOT NULL
  UNION ALL
  SELECT svc_random_id('whd'), b.account_id, b.mode, e.id, e.url, $4, replace($5, $6, to_json(e.id)::text), now()
  FROM b JOIN webhook_endpoints e ON e.account_id = b.account_id AND e.mode = b.mode AND e.status = 'active'
                                 AND $4 = ANY(e.events)
  RETURNING id
)
SELECT id, 'batch' AS kind FROM b UNION ALL SELECT id, 'delivery' FROM sent`;

/**
 * Ends a batch if it is still in one of `from`, recording its event's deliveries (its own
 * webhook_url, and its mode's endpoints that subscribe) in the same statement: a batch ends once,
 * and its event is never lost between the two. Answers whether it moved, and the deliveries.
 */
export async function endBatch(
  db: Db,
  id: string,
  from: readonly string[],
  to: "completed" | "expired" | "canceled",
  event: { type: string; body: string; webhookIdSlot: string },
): Promise<{ moved: boolean; deliveryIds: string[] }> {
  const rows = await findMany<{ id: string; kind: "batch" | "delivery" }>(db, "batch_end", END_BATCH, [
    id,
    from,
    to,
    event.type,
    event.body,
    event.webhookIdSlot,
  ]);
  return {
    moved: rows.some((r) => r.kind === "batch"),
    deliveryIds: rows.filter((r) => r.kind === "delivery").map((r) => r.id),
  };
}

/** Why a batch's admission waits (null: it does not). */
export async function pauseBatch(db: Db, id: string, reason: string | null) {
  await sqlPool(db).query({
    name: "batch_pause",
    text: "UPDATE batches SET paused_reason = $2 WHERE id = $1 AND paused_reason IS DISTINCT FROM $2",
    values: [id, reason],
  });
}

/** A page of a batch's items with their runs, in line order after `afterLine`. */
export function batchItemResults(db: Db, batchId: string, afterLine: number, limit: number) {
  return findMany<
    Omit<BatchItemResult, "run"> & {
      runId: string | null;
      runStatus: string | null;
      output: unknown;
      errorCode: string | null;
      errorMessage: string | null;
      tokensCharged: number | null;
    }
  >(
    db,
    "batch_item_results",
    `SELECT i.line, i.custom_id, i.state, i.error, r.id AS run_id, r.status AS run_status, r.output,
            r.error_code, r.error_message, r.tokens_charged
     FROM batch_items i LEFT JOIN runs r ON r.id = i.run_id
     WHERE i.batch_id = $1 AND i.line > $2 ORDER BY i.line LIMIT $3`,
    [batchId, afterLine, limit],
  ).then((rows) =>
    rows.map((r): BatchItemResult => ({
      line: r.line,
      customId: r.customId,
      state: r.state,
      error: r.error,
      run: r.runId
        ? {
            id: r.runId,
            status: r.runStatus!,
            output: r.output,
            errorCode: r.errorCode,
            errorMessage: r.errorMessage,
            tokensCharged: r.tokensCharged,
          }
        : null,
    })),
  );
}
