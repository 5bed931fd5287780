// Creation: a batch of runs reserved and inserted in one statement (runs.ts's other reads are
// cold paths). Accounts are locked before keys and batches here and in settle.ts (a key or a batch
// row is only reached through its locked account), so creations and settlements cannot deadlock
// on them; batch lines, which no settlement locks, come before the accounts.
import type pg from "pg";
import type { BudgetPeriod, Mode, RunApi, RunLane } from "@svc/core";
import { balanceLowParameters, insertBalanceLowDeliveries } from "../accounts.js";

export interface RunRow {
  id: string;
  accountId: string;
  apiKeyId: string;
  mode: Mode;
  modelId: string;
  input: Record<string, unknown>;
  webhookUrl: string | null;
  unitsRequested: number;
  estimatedTokens: number;
  /** Tokens to reserve now (0 for test runs); the account's available balance must cover them. */
  reserve: number;
  ledgerId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** Events the run's own webhook_url receives. */
  webhookEvents: readonly string[];
  /** Cancel-After: when the run is canceled if it has not ended. */
  cancelAt: Date | null;
  /** Its lane while it waits for capacity. */
  priority: RunLane;
  /** W3C traceparent of the request that made it, when tracing is on. */
  traceParent?: string;
  /** The API style it came through, when not ours. */
  api?: RunApi;
  /**
   * The batch line it is made for: the run is made only while that line waits to be admitted
   * (state pending, under its row lock), and the line is admitted by the same statement.
   */
  batchItem?: { batchId: string; line: number };
}

/**
 * created: inserted (and reserved). conflict: a run with the same Idempotency-Key exists. taken:
 * its batch line no longer waits (admitted by another pass, or ended by a cancel or the window).
 * unreserved: the account could not cover the batch's reservations for it; over_budget: it could,
 * but the run's key has a spend budget that could not (the caller retries such runs one at a time
 * when the batch held several of the account's runs).
 */
export type InsertOutcome =
  | { kind: "created"; createdAt: Date }
  | { kind: "conflict" }
  | { kind: "taken" }
  | { kind: "unreserved" }
  | { kind: "over_budget"; budget: KeyBudgetState };

/** A key's budget as the refusing statement saw it. */
export interface KeyBudgetState {
  tokens: number;
  period: BudgetPeriod;
  /** Reserved or charged in the current period. */
  used: number;
  /** When the period began (UTC day, month, or the key's creation for a total budget). */
  periodStart: Date;
}

/** A batch's outcomes, and the account alerts (account.balance_low) its reservations recorded. */
export interface InsertResult {
  outcomes: InsertOutcome[];
  deliveryIds: string[];
}

// A batch line's run (RunRow.batchItem): the lines are locked before the accounts.
const LINES_LOCKED = `), items AS MATERIALIZED (
  -- Batch lines still waiting, probed by key and locked in order, before the accounts; a line
  -- admitted or ended meanwhile is re-checked after its lock and left out. A lateral probe, so
  -- that no plan hashes every line of every batch.
  SELECT i.batch_id, i.line, i.ctid AS tid
  FROM (SELECT batch_id, batch_line FROM b WHERE batch_line IS NOT NULL ORDER BY batch_id, batch_line) o
  CROSS JOIN LATERAL (
    SELECT batch_id, line, ctid FROM batch_items
    WHERE batch_id = o.batch_id AND line = o.batch_line AND state = 'pending' FOR NO KEY UPDATE
  ) i
`;

// ... and admitted with their runs, counted in their batches' tallies.
const LINES_ADMITTED = `), lines_admitted AS (
  -- By the locked version's address: a join on the key may be planned as a scan of every line.
  UPDATE batch_items i SET state = 'admitted', run_id = f.id
  FROM fresh f JOIN created c ON c.id = f.id JOIN items it ON it.batch_id = f.batch_id AND it.line = f.batch_line
  WHERE i.ctid = it.tid
  RETURNING i.batch_id
), batch_locks AS MATERIALIZED (
  -- After the accounts, in id order, as every statement that locks more than one batch does.
  SELECT bt.id FROM batches bt WHERE bt.id IN (SELECT batch_id FROM lines_admitted) ORDER BY bt.id FOR NO KEY UPDATE
), batches_admitted AS (
  UPDATE batches bt SET admitted = bt.admitted + n.admitted
  FROM (SELECT batch_id, count(*)::int AS admitted FROM lines_admitted GROUP BY batch_id) n
  WHERE bt.id = n.batch_id AND bt.id IN (SELECT id FROM batch_locks)
`;

/**
 * The creation statement; `lines` for one with batch lines' runs. Statements of interactive runs
 * (the API's) go without those parts: opening and locking batch_items and batches and their
 * indexes in every creation cost the API a tenth of its creations a second (docs/benchmarks.md).
 */
const insertRunsText = (lines: boolean) => `
WITH b AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(
    id text, account_id text, api_key_id text, mode "Mode", model_id text, input jsonb, webhook_url text,
    units_requested int, estimated_tokens int, reserve int, ledger_id text, idempotency_key text, request_hash text,
    webhook_events text[], cancel_at timestamptz, priority "RunPriority", trace_parent text,
    api "RunApi", batch_id text, batch_line int)
${lines ? LINES_LOCKED : ""}), fresh AS (
  -- OFFSET 0 keeps the lookup a probe of the unique index per run: a plain EXISTS may be planned
  -- as a hash of every run of the table (one sequential scan per batch), which the planner takes
  -- for cheaper in any table below ~15,000 runs, given its guess of 100 runs per batch.
  SELECT b.* FROM b WHERE (b.idempotency_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM runs r WHERE r.account_id = b.account_id AND r.mode = b.mode AND r.idempotency_key = b.idempotency_key
    OFFSET 0))
    ${lines ? "AND (b.batch_line IS NULL OR (b.batch_id, b.batch_line) IN (SELECT batch_id, line FROM items))" : ""}
), need AS (
  SELECT account_id, sum(reserve)::int AS total FROM fresh WHERE reserve > 0 GROUP BY account_id
), key_need AS (
  SELECT api_key_id, sum(reserve)::int AS total FROM fresh WHERE reserve > 0 GROUP BY api_key_id
), locked AS MATERIALIZED (
  SELECT a.id, a.balance - a.reserved - need.total AS left_after, a.low_balance_threshold, a.balance_low_armed
  FROM accounts a JOIN need ON need.account_id = a.id
  WHERE a.balance - a.reserved >= need.total ORDER BY a.id FOR NO KEY UPDATE OF a
), budgeted AS (
  SELECT k.id, k.account_id, n.total, k.budget_tokens, k.budget_period,
         svc_period_start(k.budget_period, now()::timestamptz(3), k.budget_period_start) AS period_start
  FROM api_keys k JOIN key_need n ON n.api_key_id = k.id WHERE k.budget_tokens IS NOT NULL
), key_locks AS MATERIALIZED (
  SELECT k.id, bk.period_start,
         CASE WHEN k.budget_period_start = bk.period_start THEN k.budget_used ELSE 0 END AS used
  FROM api_keys k JOIN budgeted bk ON bk.id = k.id
  WHERE k.account_id IN (SELECT id FROM locked) ORDER BY k.id FOR NO KEY UPDATE OF k
), over AS (
  SELECT bk.id, bk.account_id, bk.budget_tokens, bk.budget_period, bk.period_start, kl.used
  FROM budgeted bk JOIN key_locks kl ON kl.id = bk.id WHERE kl.used + bk.total > bk.budget_tokens
), reserved AS (
  UPDATE accounts a SET reserved = a.reserved + need.total,
    balance_low_armed = a.balance_low_armed AND NOT COALESCE(l.left_after < l.low_balance_threshold, false)
  FROM need, locked l
  WHERE a.id = need.account_id AND l.id = a.id AND a.id NOT IN (SELECT account_id FROM over)
  RETURNING a.id
), keys_counted AS (
  UPDATE api_keys k SET budget_used = kl.used + n.total, budget_period_start = kl.period_start
  FROM key_locks kl, key_need n
  WHERE k.id = kl.id AND n.api_key_id = k.id AND k.account_id IN (SELECT id FROM reserved)
), created AS (
  INSERT INTO runs (id, account_id, api_key_id, mode, model_id, input, webhook_url, units_requested,
                    estimated_tokens, reserved_tokens, idempotency_key, request_hash, webhook_events, cancel_at, priority,
                    trace_parent, api, batch_id)
  SELECT id, account_id, api_key_id, mode, model_id, input, webhook_url, units_requested,
         estimated_tokens, reserve, idempotency_key, request_hash, webhook_events, cancel_at, priority, trace_parent,
         COALESCE(api, 'native'), batch_id
  FROM fresh WHERE reserve = 0 OR account_id IN (SELECT id FROM reserved)
  RETURNING id, created_at
), ledger AS (
  INSERT INTO ledger_entries (id, account_id, run_id, kind, amount, balance_delta, reserved_delta)
  SELECT f.ledger_id, f.account_id, f.id, 'RESERVE', f.reserve, 0, f.reserve
  FROM fresh f JOIN created c ON c.id = f.id WHERE f.reserve > 0
${lines ? LINES_ADMITTED : ""}), alerts AS (${insertBalanceLowDeliveries(`(
  SELECT l.id, l.left_after AS available, l.low_balance_threshold FROM locked l
  WHERE l.balance_low_armed AND l.left_after < l.low_balance_threshold AND l.id IN (SELECT id FROM reserved))`)}
)
SELECT id, created_at, 'created' AS outcome, NULL::jsonb AS budget FROM created
UNION ALL
SELECT id, NULL, ${lines ? "CASE WHEN batch_line IS NULL THEN 'conflict' ELSE 'taken' END" : "'conflict'"}, NULL
FROM b WHERE NOT EXISTS (SELECT 1 FROM fresh WHERE fresh.id = b.id)
UNION ALL
SELECT f.id, NULL, 'over_budget', jsonb_build_object('tokens', o.budget_tokens, 'period', o.budget_period,
         'used', o.used, 'period_start', o.period_start)
FROM fresh f JOIN over o ON o.id = f.api_key_id WHERE f.reserve > 0
UNION ALL
SELECT id, NULL, 'alert', NULL FROM alerts`;

const INSERT_RUNS = insertRunsText(false);
const INSERT_RUN_LINES = insertRunsText(true);

const balanceLow = balanceLowParameters();

/** A unique violation of the runs' Idempotency-Key index (migration 20261126110000_idempotency_keys_partial). */
const isIdempotencyKeyTaken = (error: unknown) =>
  (error as { code?: string }).code === "23505" &&
  (error as { constraint?: string }).constraint === "runs_account_id_mode_idempotency_key_key";

/**
 * Reserves and inserts a batch of runs in one statement: per account, the batch's reservations are
 * taken together only if the account can cover them all (available never below zero) and every
 * key among them with a budget can too (each key's counter is checked and moved under its row
 * lock, so concurrent creations on any number of processes never pass a budget). A reservation
 * that leaves an armed account below its low-balance threshold records its account.balance_low
 * deliveries in the same statement.
 */
export async function insertRuns(
  pool: pg.Pool | pg.PoolClient,
  runs: readonly RunRow[],
): Promise<InsertResult> {
  const rows = runs.map((r) => ({
    id: r.id,
    account_id: r.accountId,
    api_key_id: r.apiKeyId,
    mode: r.mode,
    model_id: r.modelId,
    input: r.input,
    webhook_url: r.webhookUrl,
    units_requested: r.unitsRequested,
    estimated_tokens: r.estimatedTokens,
    reserve: r.reserve,
    ledger_id: r.ledgerId,
    idempotency_key: r.idempotencyKey,
    request_hash: r.requestHash,
    webhook_events: r.webhookEvents,
    cancel_at: r.cancelAt?.toISOString() ?? null,
    priority: r.priority,
    ...(r.traceParent && { trace_parent: r.traceParent }),
    ...(r.api && { api: r.api }),
    ...(r.batchItem && { batch_id: r.batchItem.batchId, batch_line: r.batchItem.line }),
  }));
  let result;
  try {
    result = await pool.query<{
      id: string;
      created_at: Date | null;
      outcome: "created" | "conflict" | "taken" | "over_budget" | "alert";
      budget: { tokens: number; period: BudgetPeriod; used: number; period_start: string } | null;
    }>({
      ...(runs.some((r) => r.batchItem)
        ? { name: "runs_insert_lines", text: INSERT_RUN_LINES }
        : { name: "runs_insert", text: INSERT_RUNS }),
      values: [JSON.stringify(rows), ...balanceLow],
    });
  } catch (error) {
    // The statement finds a key taken by a committed run ("conflict"); a twin committed by another
    // process while this statement ran makes its insert fail on the unique index instead, and
    // nothing of the statement stays. For one run that is the same conflict; a batch is retried
    // run by run by its caller, each then finding the twin.
    if (runs.length === 1 && isIdempotencyKeyTaken(error))
      return { outcomes: [{ kind: "conflict" }], deliveryIds: [] };
    throw error;
  }
  const byId = new Map<string, (typeof result.rows)[number]>();
  const deliveryIds: string[] = [];
  for (const row of result.rows) {
    if (row.outcome === "alert") deliveryIds.push(row.id);
    else byId.set(row.id, row);
  }
  const outcomes = runs.map((r): InsertOutcome => {
    const row = byId.get(r.id);
    if (!row) return { kind: "unreserved" };
    switch (row.outcome) {
      case "created":
        return { kind: "created", createdAt: row.created_at! };
      case "over_budget": {
        const b = row.budget!;
        return {
          kind: "over_budget",
          budget: { tokens: b.tokens, period: b.period, used: b.used, periodStart: new Date(b.period_start) },
        };
      }
      case "taken":
        return { kind: "taken" };
      default:
        return { kind: "conflict" };
    }
  });
  return { outcomes, deliveryIds };
}
