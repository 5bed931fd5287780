// Feeding batches (issue #61): one pass admits items as runs of the batch lane, a couple of
// intervals' worth ahead of their model's places (batchFeed; the scheduler keeps them behind
// interactive runs and to the batches' share), accounts' batches taking turns (shareBatchRoom);
// expires what the window did not reach; and moves batches on as their items end. Each item
// becomes a run through the lifecycle's creation (reserved one by one at the batch price, its
// key's budget checked then), whose statement admits the line with its run under the line's row
// lock: a line waiting is made one run, whatever passes meet, and a pass that dies leaves none
// half made.
import {
  batchFeed,
  nextBatchStatus,
  poolOf,
  pricingSchema,
  runnerSchema,
  shareBatchRoom,
  batchEventTemplate,
  type BatchCounts,
  type BatchStatus,
  type BatchLineError,
} from "@svc/core";
import {
  batchAdmission,
  batchCounts,
  batchesInFlight,
  endBatch,
  endPendingItems,
  moveBatch,
  openBatchRuns,
  openBatches,
  pauseBatch,
  pendingItems,
  type Db,
  type OpenBatch,
} from "@svc/db";
import type { Logger } from "@svc/logger";
import type { RunLifecycle } from "../runs/lifecycle.js";

export interface FeedDeps {
  db: Db;
  runs: Pick<RunLifecycle, "createForLine" | "cancel">;
  /** A pooled model's places now, and how long its runs hold one (median, ms; null: unknown). */
  places(modelId: string): Promise<{ capacity: number; heldMs: number | null }>;
  settings: {
    /** BATCH_MAX_SHARE: the share of a model's places batches may hold. */
    share: number;
    /** BATCH_UNPOOLED_IN_FLIGHT: items in flight at once for a model that needs no places. */
    unlimited: number;
    /** BATCH_FEED_INTERVAL_MS. */
    intervalMs: number;
  };
  logger: Logger;
  /** Hands recorded deliveries (batch events) to the webhook workers. */
  deliveries(ids: readonly string[]): Promise<void>;
}

/**
 * Ends a batch (if still in one of `from`) and records its event in the same statement, then
 * hands the deliveries on (a lost hand-off is sent by the delivery sweeper).
 */
async function end(
  deps: FeedDeps,
  batch: OpenBatch,
  from: readonly string[],
  to: "completed" | "expired" | "canceled",
  counts: BatchCounts,
): Promise<boolean> {
  const event = `batch.${to}` as const;
  const template = batchEventTemplate(event, {
    batchId: batch.id,
    modelId: batch.modelId,
    counts: { total: counts.total, completed: counts.completed, failed: counts.failed },
    tokensCharged: counts.tokensCharged,
    metadata: batch.metadata,
    at: new Date(),
  });
  const { moved, deliveryIds } = await endBatch(deps.db, batch.id, from, to, { type: event, ...template });
  if (deliveryIds.length)
    await deps
      .deliveries(deliveryIds)
      .catch((error: unknown) =>
        deps.logger.warn("enqueue of batch deliveries failed", { batch_id: batch.id, error }),
      );
  return moved;
}

const EXPIRED: BatchLineError = {
  code: "batch_expired",
  message: "The batch's 24-hour window ended before this line was run.",
  param: null,
};

/** Cancels a batch's runs that have not ended (or only those still waiting); canceled runs charge their partial-cancel share. */
export async function cancelBatchRuns(
  deps: { db: Db; runs: Pick<RunLifecycle, "cancel">; logger: Logger },
  batch: Pick<OpenBatch, "id" | "accountId" | "mode">,
  queuedOnly: boolean,
) {
  for (const { id } of await openBatchRuns(deps.db, batch.id, queuedOnly))
    await deps.runs
      .cancel({ accountId: batch.accountId, mode: batch.mode }, id)
      .catch((error: unknown) => deps.logger.warn("canceling a batch's run failed", { run_id: id, error }));
}

/** The window ended: lines not admitted are expired, runs still waiting canceled; running ones end as they will. */
async function expire(deps: FeedDeps, batch: OpenBatch) {
  await endPendingItems(deps.db, batch.id, "expired", EXPIRED);
  await cancelBatchRuns(deps, batch, true);
  const counts = (await batchCounts(deps.db, [batch.id])).get(batch.id)!;
  if (await end(deps, batch, ["in_progress", "finalizing"], "expired", counts))
    deps.logger.info("batch expired", { batch_id: batch.id });
}

/**
 * Admits up to `n` of a batch's lines as runs; stops (and says why) when tokens or the key's budget
 * run short. Answers how many it admitted.
 */
async function admit(deps: FeedDeps, batch: OpenBatch, n: number): Promise<number> {
  const ctx = await batchAdmission(deps.db, batch.id);
  if (!ctx) return 0;
  // The key as it is now: revoked, expired, or no longer allowed the model (changed since).
  const refused = !ctx.keyUsable
    ? { code: "key_revoked", message: "The batch's API key was revoked or expired.", param: null }
    : ctx.allowedModels.length && !ctx.allowedModels.includes(batch.modelId)
      ? {
          code: "model_not_allowed",
          message: `The batch's API key may no longer run ${batch.modelId}.`,
          param: null,
        }
      : ctx.modelStatus !== "active"
        ? { code: "model_not_active", message: `${batch.modelId} is ${ctx.modelStatus}.`, param: null }
        : null;
  if (refused) {
    await endPendingItems(deps.db, batch.id, "refused", refused);
    return 0;
  }
  // As stored: parsed here as the API parses its catalogue (defaults applied).
  const runner = runnerSchema.safeParse(ctx.runner);
  const pricing = pricingSchema.safeParse(ctx.pricing);
  if (!runner.success || !pricing.success) {
    deps.logger.warn("a batch's model has settings that do not parse", {
      batch_id: batch.id,
      model_id: batch.modelId,
    });
    return 0;
  }
  const model = { id: batch.modelId, status: ctx.modelStatus, pricing: pricing.data, runner: runner.data };
  const items = await pendingItems(deps.db, batch.id, n);
  let paused: string | null = null;
  let admitted = 0;
  await Promise.all(
    items.map(async (item) => {
      const result = await deps.runs.createForLine(
        {
          accountId: batch.accountId,
          apiKeyId: batch.apiKeyId,
          keyMaxConcurrentRuns: ctx.keyMaxConcurrentRuns,
          mode: batch.mode,
          model,
          account: { weight: ctx.weight, maxConcurrentRuns: ctx.maxConcurrentRuns },
          priority: "batch",
          input: item.input,
          weights: item.weights,
          body: item.input,
          webhookUrl: null,
          webhookEventsFilter: null,
          idempotencyKey: null,
          cancelAfterMs: null,
        },
        { batchId: batch.id, line: item.line, discountPercent: batch.discountPercent },
      );
      if (result.kind === "created") admitted++;
      // Another pass admitted it, or a cancel or the window ended it: nothing to do.
      else if (result.kind === "line_taken") return;
      else if (result.kind === "insufficient") paused = "insufficient_tokens";
      else if (result.kind === "over_budget") paused = "key_budget_exceeded";
      else if (result.kind === "model_not_active") paused = "model_not_active";
      else
        deps.logger.warn("a batch line was not admitted", {
          batch_id: batch.id,
          line: item.line,
          kind: result.kind,
        });
    }),
  );
  if (paused !== batch.pausedReason) await pauseBatch(deps.db, batch.id, paused);
  return admitted;
}

/** A model's batch items in flight after a pass, and below how many a run's end calls for the next (batchFeed). */
export interface FedModel {
  inFlight: number;
  refillBelow: number;
}

/** Admission: per model, the room its places give, shared among its batches' accounts. */
async function admitAll(deps: FeedDeps, feeding: OpenBatch[]): Promise<Map<string, FedModel>> {
  const fed = new Map<string, FedModel>();
  const byModel = new Map<string, OpenBatch[]>();
  for (const b of feeding) byModel.set(b.modelId, [...(byModel.get(b.modelId) ?? []), b]);
  const inFlight = await batchesInFlight(deps.db);
  for (const [modelId, batches] of byModel) {
    const parsed = runnerSchema.safeParse(batches[0]!.runner);
    const pooled = parsed.success && poolOf(parsed.data) !== null;
    const places = pooled ? await deps.places(modelId) : null;
    let inFlightNow = inFlight.get(modelId) ?? 0;
    const { room, refillBelow } = batchFeed({
      capacity: places?.capacity ?? null,
      inFlight: inFlightNow,
      share: deps.settings.share,
      unlimited: deps.settings.unlimited,
      heldMs: places?.heldMs ?? null,
      intervalMs: deps.settings.intervalMs,
    });
    if (room > 0)
      for (const [batchId, n] of shareBatchRoom(batches, room))
        inFlightNow += await admit(
          deps,
          batches.find((b) => b.id === batchId)!,
          n,
        );
    fed.set(modelId, { inFlight: inFlightNow, refillBelow });
  }
  return fed;
}

/**
 * One pass over the open batches: expiry, admission, then each batch's next status. Answers the
 * models whose batches still have lines to admit, with their items in flight and the count below
 * which a run of one ending is worth a pass at once.
 */
export async function feedBatches(deps: FeedDeps): Promise<Map<string, FedModel>> {
  const open = await openBatches(deps.db);
  if (!open.length) return new Map();
  const now = Date.now();
  const expired = open.filter((b) => b.status !== "canceling" && b.expiresAt.getTime() <= now);
  for (const b of expired) await expire(deps, b);
  const fed = await admitAll(
    deps,
    open.filter((b) => b.status === "in_progress" && b.pending > 0 && !expired.includes(b)),
  );
  // A cancel (from the API, or an operator's CLI, which marks it alone) stops the batch's runs.
  for (const b of open) if (b.status === "canceling") await cancelBatchRuns(deps, b, false);
  // Only a batch with no line left to admit can move on: the others' counts are not read.
  const live = open.filter((b) => !expired.includes(b) && (b.status !== "in_progress" || b.pending === 0));
  const counts = await batchCounts(
    deps.db,
    live.map((b) => b.id),
  );
  for (const b of live) {
    let status = b.status as BatchStatus;
    const c = counts.get(b.id)!;
    for (let next = nextBatchStatus(status, c); next; next = nextBatchStatus(status, c)) {
      const moved =
        next === "completed" || next === "canceled"
          ? await end(deps, b, [status], next, c)
          : await moveBatch(deps.db, b.id, [status], next, "finalizing_at");
      if (!moved) break;
      status = next;
    }
    if (status !== b.status) deps.logger.info("batch moved", { batch_id: b.id, status });
  }
  return fed;
}
