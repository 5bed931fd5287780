// Batches (issue #61): many runs of one model asked in one call. The rules here are pure: what a
// line of a batch is, what an item costs, how many items a feed pass may admit and to whom, what
// a batch's status is from its items, and what a line of its results says. The use-cases
// (use-cases/src/batches) store, feed and finish batches with them.
import { z } from "zod";

/** A batch's life, in OpenAI's Batch API's words (ours and theirs share them). */
export const BATCH_STATUSES = [
  "validating",
  "in_progress",
  "finalizing",
  "completed",
  "failed",
  "expired",
  "canceling",
  "canceled",
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** How long a batch may take: what has not started by then is expired (OpenAI's "24h"). */
export const BATCH_WINDOW_MS = 24 * 3_600_000;

/** The most lines a batch holds. */
export const BATCH_MAX_ITEMS = 50_000;

/** The most bytes of a batch's JSON Lines (BATCH_MAX_ITEMS lines of 4 KiB on average). */
export const BATCH_JSONL_MAX_BYTES = BATCH_MAX_ITEMS * 4_096;

/** The longest line of a batch's JSONL (bytes). */
export const BATCH_LINE_MAX_BYTES = 1_048_576;

/** Statuses a batch ends in. */
export const isBatchEnded = (status: string) =>
  status === "completed" || status === "failed" || status === "expired" || status === "canceled";

/**
 * What an item costs: the model's price for it less the batch discount, rounded up to a whole
 * token (a 1-token run is not free; every larger one is cheaper).
 */
export const batchTokens = (tokens: number, discountPercent: number) =>
  Math.ceil((tokens * (100 - discountPercent)) / 100);

/** Why a line is no item, as its error line says. */
export interface BatchLineError {
  code: string;
  message: string;
  /** The field at fault (input.prompt, custom_id), or null for the line as a whole. */
  param: string | null;
}

export type ParsedBatchLine =
  | { ok: true; customId: string | null; input: Record<string, unknown> }
  | { ok: false; customId: string | null; error: BatchLineError };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A line of our batch JSONL (or an element of `items`): `{"custom_id": "...", "input": {...}}`;
 * custom_id is optional (at most 200 characters), input an object. The model's own checks of the
 * input come after (the caller validates it against the model's schema).
 */
export function parseBatchItem(value: unknown): ParsedBatchLine {
  if (!isObject(value))
    return {
      ok: false,
      customId: null,
      error: { code: "invalid_item", message: "A line is a JSON object.", param: null },
    };
  const customId = value.custom_id;
  if (customId !== undefined && (typeof customId !== "string" || customId.length > 200))
    return {
      ok: false,
      customId: null,
      error: {
        code: "invalid_item",
        message: "custom_id is a string of at most 200 characters.",
        param: "custom_id",
      },
    };
  const id = (customId as string | undefined) ?? null;
  if (!isObject(value.input))
    return {
      ok: false,
      customId: id,
      error: { code: "invalid_item", message: "input is an object.", param: "input" },
    };
  return { ok: true, customId: id, input: value.input };
}

/** A JSONL line's text as an item: its JSON parsed, then read as parseBatchItem reads it. */
export function parseBatchLine(text: string): ParsedBatchLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      customId: null,
      error: {
        code: "invalid_json",
        message: `The line is not JSON: ${(error as Error).message}`,
        param: null,
      },
    };
  }
  return parseBatchItem(value);
}

/** A model's places as a feed pass reads them (null capacity: a model that needs none). */
export interface BatchFeedFigures {
  capacity: number | null;
  /** Batch items of the model admitted and not ended (every batch's). */
  inFlight: number;
  /** The share of the model's places batches may hold at most (BATCH_MAX_SHARE). */
  share: number;
  /** How many items may be in flight for a model that needs no places. */
  unlimited: number;
  /** How long the model's runs hold a place (the median of the last ones; null: not known yet). */
  heldMs: number | null;
  /** How long until the next pass at the latest (BATCH_FEED_INTERVAL_MS). */
  intervalMs: number;
}

/** What a feed pass admits for a model, and when a run's end should bring the next pass sooner. */
export interface BatchFeed {
  /** Items to admit now (0: none). */
  room: number;
  /**
   * Items in flight below which a run of the model ending should bring a pass at once, rather
   * than at the next interval: under it, fewer than an interval's worth wait behind the busy places.
   */
  refillBelow: number;
}

/**
 * How many items a feed pass may admit for a model: enough for the batches' share of its places
 * (at least one) to be busy, and waiting behind them as many as those places get through in two
 * intervals between passes (at least one each per interval). A pass tops the model up to that; a
 * run's end brings a pass sooner only once less than an interval's worth waits (`refillBelow`).
 * So a place a batch item frees is taken by the next at once, even when a pass is slow, and items
 * are admitted a few dozen at a time on a busy pool rather than a few per run's end: each pass
 * costs its statements and commits whatever it admits. Items wait in the batch lane, which the
 * scheduler serves only when no interactive run waits for the model and only up to the share
 * (its `batchCap`): admitting ahead makes nobody wait, and what waits in Redis stays a few
 * passes' worth, whatever the batch's size. A model that needs no places keeps `unlimited` in
 * flight, each end refilling it.
 */
export function batchFeed(f: BatchFeedFigures): BatchFeed {
  if (f.capacity === null) return { room: Math.max(0, f.unlimited - f.inFlight), refillBelow: f.unlimited };
  if (f.capacity === 0) return { room: 0, refillBelow: 0 };
  const cap = Math.max(1, Math.floor(f.capacity * f.share));
  const perInterval = cap * (f.heldMs ? Math.max(1, Math.ceil(f.intervalMs / Math.max(1, f.heldMs))) : 1);
  return { room: Math.max(0, cap + 2 * perInterval - f.inFlight), refillBelow: cap + perInterval };
}

/**
 * Shares `room` among a model's batches with items waiting: accounts take turns, one item at a
 * time (round robin, so a big batch does not starve another account's small one), and within an
 * account its oldest batch first. Answers how many items each batch gets.
 */
export function shareBatchRoom(
  batches: readonly { id: string; accountId: string; pending: number }[],
  room: number,
): Map<string, number> {
  const byAccount = new Map<string, { id: string; left: number }[]>();
  for (const b of batches) {
    if (b.pending <= 0) continue;
    const list = byAccount.get(b.accountId) ?? [];
    list.push({ id: b.id, left: b.pending });
    byAccount.set(b.accountId, list);
  }
  const out = new Map<string, number>();
  let left = room;
  while (left > 0 && byAccount.size) {
    for (const [account, list] of byAccount) {
      if (left <= 0) break;
      const head = list[0]!;
      out.set(head.id, (out.get(head.id) ?? 0) + 1);
      left--;
      if (--head.left === 0) list.shift();
      if (!list.length) byAccount.delete(account);
    }
  }
  return out;
}

/**
 * What a batch's row keeps of its lines and runs, moved by the statements that move them: lines
 * marked admitted (`admitted`) or ended without a run (`dropped`: refused, canceled, expired), and
 * its runs' ends (`runsCompleted`, `runsFailed`: failed or canceled) with what they were charged.
 * Reading them costs one row, where counting the items cost a scan of the whole batch (a poll of a
 * 20,000-line batch was ~45 ms of Postgres; docs/benchmarks.md).
 */
export interface BatchTally {
  total: number;
  invalid: number;
  admitted: number;
  dropped: number;
  runsCompleted: number;
  runsFailed: number;
  tokensCharged: number;
}

/**
 * A batch's counts from its tally. A run may end before the pass that made it marks its line
 * admitted (or after a cancel dropped the line, until that pass admits it to its run): for that
 * moment the line is counted by its run's end, not also as pending or dropped, so the counts always
 * add up to the total.
 */
export function batchCountsOf(t: BatchTally): BatchCounts {
  const runsEnded = t.runsCompleted + t.runsFailed;
  const waiting = t.total - t.invalid - t.admitted - t.dropped;
  const early = Math.max(0, runsEnded - t.admitted);
  const fromWaiting = Math.min(early, waiting);
  const fromDropped = Math.min(early - fromWaiting, t.dropped);
  return {
    total: t.total,
    pending: waiting - fromWaiting,
    running: Math.max(0, t.admitted - runsEnded),
    completed: t.runsCompleted,
    failed: t.runsFailed + t.invalid + t.dropped - fromDropped,
    tokensCharged: t.tokensCharged,
  };
}

/** A batch's items counted by where they stand. */
export interface BatchCounts {
  total: number;
  /** Waiting to be admitted. */
  pending: number;
  /** Admitted, their runs not ended. */
  running: number;
  completed: number;
  /** Ended without an output: invalid lines, refused, failed, canceled or expired items. */
  failed: number;
  tokensCharged: number;
}

/**
 * The status a batch moves to from its items (null: it stays): in progress, it is finalizing
 * once nothing waits and nothing runs, and completed after; canceling, it is canceled once its
 * admitted items have ended (those not admitted were canceled when the cancel came).
 */
export function nextBatchStatus(status: BatchStatus, counts: BatchCounts): BatchStatus | null {
  const settled = counts.pending === 0 && counts.running === 0;
  if (!settled) return null;
  if (status === "in_progress") return "finalizing";
  if (status === "finalizing") return "completed";
  if (status === "canceling") return "canceled";
  return null;
}

/**
 * An item's line in the batch's results: what its run did, or why there was none. A schema, so
 * that the API documents the JSON Lines it answers with it and the SDK's type is generated from it.
 */
export const batchResultLineSchema = z.object({
  line: z.number().int(),
  custom_id: z.string().nullable(),
  run_id: z.string().nullable(),
  status: z.enum(["completed", "failed", "canceled", "expired", "invalid"]),
  output: z.record(z.string(), z.unknown()).nullable(),
  error: z.object({ code: z.string(), message: z.string(), param: z.string().nullish() }).nullable(),
  tokens_charged: z.number().int(),
});
export type BatchResultLine = z.infer<typeof batchResultLineSchema>;

/** An item as its result is read: the line's state and, once admitted, its run. */
export interface BatchItemResult {
  line: number;
  customId: string | null;
  state: string;
  error: BatchLineError | null;
  run: {
    id: string;
    status: string;
    output: unknown;
    errorCode: string | null;
    errorMessage: string | null;
    tokensCharged: number | null;
  } | null;
}

/** The result line of an item that has ended; null while it waits or runs. */
export function batchResultLine(item: BatchItemResult): BatchResultLine | null {
  const base = { line: item.line, custom_id: item.customId, output: null, tokens_charged: 0 };
  if (item.state !== "admitted" || !item.run) {
    if (item.state === "pending") return null;
    const status =
      item.state === "canceled" || item.state === "expired"
        ? item.state
        : item.state === "invalid"
          ? "invalid"
          : "failed";
    return { ...base, run_id: null, status, error: item.error };
  }
  const run = item.run;
  const charged = run.tokensCharged ?? 0;
  switch (run.status) {
    case "COMPLETED":
      return {
        ...base,
        run_id: run.id,
        status: "completed",
        output: run.output as Record<string, unknown>,
        error: null,
        tokens_charged: charged,
      };
    case "FAILED":
      return {
        ...base,
        run_id: run.id,
        status: "failed",
        error: { code: run.errorCode ?? "INTERNAL_ERROR", message: run.errorMessage ?? "" },
        tokens_charged: charged,
      };
    case "CANCELED":
      return {
        ...base,
        run_id: run.id,
        status: "canceled",
        output: (run.output as Record<string, unknown> | null) ?? null,
        error: { code: "CANCELED", message: "The run was canceled." },
        tokens_charged: charged,
      };
    default:
      return null;
  }
}
