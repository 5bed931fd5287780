// A batch asked about or canceled by its owner (issue #61); its results read as JSONL, one line per
// ended item in line order, page by page (memory does not grow with the batch).
import {
  batchCountsOf,
  batchResultLine,
  isBatchEnded,
  type BatchResultLine,
  type BatchStatus,
} from "@svc/core";
import {
  batchItemResults,
  endPendingItems,
  findBatch,
  moveBatch,
  type Batch,
  type Db,
  type Owner,
} from "@svc/db";
import type { Logger } from "@svc/logger";
import type { RunLifecycle } from "../runs/lifecycle.js";
import { cancelBatchRuns } from "./feeding.js";

export {
  createBatch,
  itemLines,
  jsonlLines,
  jsonlTexts,
  LINE_TOO_LONG,
  type NewBatchSpec,
  type PrepareInput,
} from "./creation.js";
export { batchFileChunks, findBatchFile, ingestBatchFile } from "./batchFiles.js";
export { feedBatches, type FedModel, type FeedDeps } from "./feeding.js";
export { batchCounts, findBatch, listBatches } from "@svc/db";

/**
 * Marks a batch canceling and ends its lines not yet admitted (canceled, nothing charged); the
 * feeder cancels its runs and ends it. What an operator's CLI does (it has no queues).
 */
export async function markBatchCanceled(db: Db, id: string) {
  await moveBatch(db, id, ["validating", "in_progress", "finalizing"], "canceling", "canceling_at");
  await endPendingItems(db, id, "canceled", {
    code: "batch_canceled",
    message: "The batch was canceled before this line was run.",
    param: null,
  });
}

/**
 * Cancels the owner's batch: lines not yet admitted end canceled, its runs are canceled now (each
 * charged what it delivered, the partial-cancel rules); it is canceling until those have ended.
 * null: no such batch; the batch as it is when it had ended already.
 */
export async function cancelBatch(
  deps: { db: Db; runs: Pick<RunLifecycle, "cancel">; logger: Logger },
  owner: Owner,
  id: string,
): Promise<Batch | null> {
  const batch = await findBatch(deps.db, owner, id);
  if (!batch) return null;
  if (isBatchEnded(batch.status)) return batch;
  await markBatchCanceled(deps.db, id);
  await cancelBatchRuns(deps, batch, false);
  return findBatch(deps.db, owner, id);
}

/** A batch's ended items as result lines (which: every one, or the errors alone), in line order. */
export async function* batchResults(
  db: Db,
  batchId: string,
  which: "results" | "errors",
): AsyncGenerator<BatchResultLine> {
  for (let after = 0; ;) {
    const page = await batchItemResults(db, batchId, after, 1_000);
    if (!page.length) return;
    for (const item of page) {
      const line = batchResultLine(item);
      if (line && (which === "results" || line.status !== "completed")) yield line;
    }
    after = page.at(-1)!.line;
  }
}

/** A batch as our API shows it, with its items' counts (its row's tally). */
export function presentBatch(batch: Batch) {
  const counts = batchCountsOf(batch);
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    id: batch.id,
    model_id: batch.modelId,
    status: batch.status as BatchStatus,
    counts: {
      total: batch.total,
      completed: counts.completed,
      failed: counts.failed,
      running: counts.running,
      pending: counts.pending,
    },
    tokens_charged: counts.tokensCharged,
    discount_percent: batch.discountPercent,
    paused_reason: batch.pausedReason,
    metadata: (batch.metadata as Record<string, string> | null) ?? null,
    webhook_url: batch.webhookUrl,
    created_at: batch.createdAt.toISOString(),
    expires_at: batch.expiresAt.toISOString(),
    in_progress_at: iso(batch.inProgressAt),
    finalizing_at: iso(batch.finalizingAt),
    canceling_at: iso(batch.cancelingAt),
    ended_at: iso(batch.endedAt),
  };
}
