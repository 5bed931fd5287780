// The run lifecycle's hot path: each transition of a whole batch of runs is one SQL statement over
// node-postgres (named, so prepared once per connection). No interactive transaction, no read-back:
// a busy account's row is locked for one statement per batch, and each statement returns what its
// caller needs. Rows are locked in id order (runs first, then accounts), so concurrent batches
// cannot deadlock. Per-run rules (charges, payload bodies, fallbacks) are the caller's.
import type pg from "pg";
import {
  newId,
  startedTemplates,
  type BudgetPeriod,
  type Mode,
  type Pricing,
  type RunnerSettings,
  type RunPriority,
  type RunStatus,
  type SettlementPlan,
} from "@svc/core";
import { keepsPreparedStatements } from "../client.js";
import { balanceLowParameters, insertBalanceLowDeliveries } from "./accounts.js";
import { parsePricing, parseRunner } from "./catalogueFields.js";

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
  priority: RunPriority;
  /** W3C traceparent of the request that made it, when tracing is on. */
  traceParent?: string;
}

/**
 * created: inserted (and reserved). conflict: a run with the same Idempotency-Key exists.
 * unreserved: the account could not cover the batch's reservations for it; over_budget: it could,
 * but the run's key has a spend budget that could not (the caller retries such runs one at a time
 * when the batch held several of the account's runs).
 */
export type InsertOutcome =
  | { kind: "created"; createdAt: Date }
  | { kind: "conflict" }
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

// Accounts are locked before keys here and in SETTLE_RUNS (a key row is only reached through its
// locked account), so creations and settlements cannot deadlock on them.
const INSERT_RUNS = `
WITH b AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(
    id text, account_id text, api_key_id text, mode "Mode", model_id text, input jsonb, webhook_url text,
    units_requested int, estimated_tokens int, reserve int, ledger_id text, idempotency_key text, request_hash text,
    webhook_events text[], cancel_at timestamptz, priority "RunPriority", trace_parent text)
), fresh AS (
  -- OFFSET 0 keeps the lookup a probe of the unique index per run: a plain EXISTS may be planned
  -- as a hash of every run of the table (one sequential scan per batch), which the planner takes
  -- for cheaper in any table below ~15,000 runs, given its guess of 100 runs per batch.
  SELECT b.* FROM b WHERE b.idempotency_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM runs r WHERE r.account_id = b.account_id AND r.mode = b.mode AND r.idempotency_key = b.idempotency_key
    OFFSET 0)
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
                    trace_parent)
  SELECT id, account_id, api_key_id, mode, model_id, input, webhook_url, units_requested,
         estimated_tokens, reserve, idempotency_key, request_hash, webhook_events, cancel_at, priority, trace_parent
  FROM fresh WHERE reserve = 0 OR account_id IN (SELECT id FROM reserved)
  RETURNING id, created_at
), ledger AS (
  INSERT INTO ledger_entries (id, account_id, run_id, kind, amount, balance_delta, reserved_delta)
  SELECT f.ledger_id, f.account_id, f.id, 'RESERVE', f.reserve, 0, f.reserve
  FROM fresh f JOIN created c ON c.id = f.id WHERE f.reserve > 0
), alerts AS (${insertBalanceLowDeliveries(`(
  SELECT l.id, l.left_after AS available, l.low_balance_threshold FROM locked l
  WHERE l.balance_low_armed AND l.left_after < l.low_balance_threshold AND l.id IN (SELECT id FROM reserved))`)}
)
SELECT id, created_at, 'created' AS outcome, NULL::jsonb AS budget FROM created
UNION ALL
SELECT id, NULL, 'conflict', NULL FROM b WHERE NOT EXISTS (SELECT 1 FROM fresh WHERE fresh.id = b.id)
UNION ALL
SELECT f.id, NULL, 'over_budget', jsonb_build_object('tokens', o.budget_tokens, 'period', o.budget_period,
         'used', o.used, 'period_start', o.period_start)
FROM fresh f JOIN over o ON o.id = f.api_key_id WHERE f.reserve > 0
UNION ALL
SELECT id, NULL, 'alert', NULL FROM alerts`;

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
  }));
  let result;
  try {
    result = await pool.query<{
      id: string;
      created_at: Date | null;
      outcome: "created" | "conflict" | "over_budget" | "alert";
      budget: { tokens: number; period: BudgetPeriod; used: number; period_start: string } | null;
    }>({
      name: "runs_insert",
      text: INSERT_RUNS,
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
      default:
        return { kind: "conflict" };
    }
  });
  return { outcomes, deliveryIds };
}

/** What the worker needs to execute a run, returned by the statement that started it. */
export interface StartedRun {
  id: string;
  accountId: string;
  mode: Mode;
  modelId: string;
  input: Record<string, unknown>;
  unitsRequested: number;
  reservedTokens: number;
  attempts: number;
  createdAt: Date;
  startedAt: Date;
  deadlineAt: Date;
  runner: RunnerSettings;
  pricing: Pricing;
  executionTimeoutMs: number;
  /** The database's clock when the run started: terminal timestamps are derived from it. */
  dbNow: Date;
  /** run.started deliveries recorded at the run's first start; the caller enqueues them. */
  deliveryIds: string[];
  /** The trace of the request that made it (tracing on): the worker's spans join it. */
  traceParent: string | null;
}

const START_RUNS = `
WITH locked AS MATERIALIZED (
  SELECT r.id FROM svc_sorted_ids($1::text[]) AS u(id) CROSS JOIN LATERAL (
    SELECT id FROM runs WHERE runs.id = u.id AND status IN ('QUEUED', 'EXECUTING') FOR NO KEY UPDATE
  ) r
), started AS (
  UPDATE runs r SET
    status = 'EXECUTING',
    started_at = COALESCE(r.started_at, now()),
    deadline_at = COALESCE(r.deadline_at, now() + m.execution_timeout_ms * interval '1 millisecond'),
    attempts = r.attempts + 1
  FROM models m
  WHERE r.id IN (SELECT id FROM locked) AND m.id = r.model_id
  RETURNING r.id, r.account_id, r.mode, r.model_id, r.input, r.units_requested, r.reserved_tokens, r.attempts,
            r.created_at, r.started_at, r.deadline_at, m.runner, m.pricing, m.execution_timeout_ms,
            r.webhook_url, r.webhook_events, r.trace_parent
), first AS (
  SELECT s.*, to_json(id)::text AS id_json, to_json(model_id)::text AS model_json,
         to_json(to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text AS at_json
  FROM started s WHERE s.attempts = 1
), deliveries_made AS (
  INSERT INTO deliveries (id, account_id, mode, run_id, endpoint_id, url, event, body, created_at)
  SELECT svc_random_id('whd'), f.account_id, f.mode, f.id, e.id, e.url, 'run.started',
         replace(replace(replace(replace($3, $7, to_json(e.id)::text), $4, f.id_json), $5, f.model_json), $6, f.at_json),
         f.started_at
  FROM first f JOIN webhook_endpoints e ON e.account_id = f.account_id AND e.mode = f.mode AND e.status = 'active'
                                       AND 'run.started' = ANY(e.events)
  UNION ALL
  SELECT svc_random_id('whd'), f.account_id, f.mode, f.id, NULL, f.webhook_url, 'run.started',
         replace(replace(replace($2, $4, f.id_json), $5, f.model_json), $6, f.at_json), f.started_at
  FROM first f WHERE f.webhook_url IS NOT NULL AND 'run.started' = ANY(f.webhook_events)
  RETURNING id, run_id
)
SELECT started.*, now()::timestamptz(3) AS db_now,
       COALESCE((SELECT array_agg(d.id) FROM deliveries_made d WHERE d.run_id = started.id), '{}') AS delivery_ids,
       -- This transaction only (is_local): its commit does not wait for the WAL flush (startRuns).
       (SELECT set_config('synchronous_commit', 'off', true)) AS commit_unflushed
FROM started`;

const started = startedTemplates();

/**
 * QUEUED -> EXECUTING, or an EXECUTING run taken over after its worker died (attempts + 1), for a
 * batch of runs. started_at and the deadline are set once, at the first start, by the database
 * clock. A run missing from the answer is finished or canceled: there is nothing to execute.
 *
 * The start commits without waiting for its WAL to reach the disk (synchronous_commit off for its
 * own transaction; call it outside a transaction of yours, or that transaction commits so too).
 * It moves no tokens, and every later change of the run (settlement, cancel, time-out) commits
 * synchronously, which flushes the start's WAL first. Only a crash of Postgres itself (or a
 * failover to a standby) within about 3 x wal_writer_delay after a start can undo it: the run is
 * QUEUED again and executed again, as after a worker's crash, and charged once. Waiting for that flush was most of a start's time
 * under load (samples of pg_stat_activity: IO:WALSync and LWLock:WALWrite), and the fewer flushes
 * shorten every creation's own (docs/benchmarks.md).
 */
export async function startRuns(
  pool: pg.Pool | pg.PoolClient,
  ids: readonly string[],
): Promise<Map<string, StartedRun>> {
  const { runId, modelId, startedAt, webhookId } = started.placeholders;
  const result = await pool.query({
    name: "runs_start",
    text: START_RUNS,
    values: [ids, started.perRun, started.endpoint, runId, modelId, startedAt, webhookId],
  });
  return new Map(
    result.rows.map((r) => [
      r.id as string,
      {
        id: r.id,
        accountId: r.account_id,
        mode: r.mode,
        modelId: r.model_id,
        input: r.input,
        unitsRequested: r.units_requested,
        reservedTokens: r.reserved_tokens,
        attempts: r.attempts,
        createdAt: r.created_at,
        startedAt: r.started_at,
        deadlineAt: r.deadline_at,
        runner: parseRunner(r.runner),
        pricing: parsePricing(r.pricing),
        executionTimeoutMs: r.execution_timeout_ms,
        dbNow: r.db_now,
        deliveryIds: r.delivery_ids,
        traceParent: r.trace_parent,
      } satisfies StartedRun,
    ]),
  );
}

/**
 * One run's settlement, fully decided by the caller (core's planSettlement); the statement only
 * checks that the run is still in one of `from` with `expectedReserved` (and, for a cancel, the
 * units delivered its charge was computed from), and applies it.
 */
export type SettlementRow = SettlementPlan & { runId: string };

export interface SettledRun {
  id: string;
  accountId: string;
  modelId: string;
  status: RunStatus;
  tokensCharged: number;
  createdAt: Date;
  /** Null for a run canceled while queued. */
  startedAt: Date | null;
  /** Deliveries recorded with the transition; the caller enqueues them (the sweeper backs it up). */
  deliveryIds: string[];
}

const SETTLE_RUNS = `
WITH b AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(
    run_id text, "from" text[], "to" "RunStatus", expected_reserved int, expected_units int, at timestamptz,
    units_completed int, output jsonb, error_code text, error_message text,
    charge int, charge_bd int, charge_rd int, release int, release_bd int, release_rd int,
    event text, run_body text, endpoint_head text, endpoint_tail text, charge_id text, release_id text,
    start_at timestamptz, started_body text, started_head text, started_tail text)
), locked AS MATERIALIZED (
  -- The batch's runs ($2: the ids of b), probed and locked in id order (svc_sorted_ids). Whether
  -- each may move is decided by the update below, which a concurrent change makes re-check the
  -- row's newest version.
  SELECT r.id FROM svc_sorted_ids($2::text[]) AS u(id) CROSS JOIN LATERAL (
    SELECT id FROM runs WHERE runs.id = u.id FOR NO KEY UPDATE
  ) r
), settled AS (
  -- Each settled run carries its row of b (charges, bodies, ledger ids) from here on: what follows
  -- reads settled alone, with no join back to b.
  UPDATE runs r SET
    status = b."to", reserved_tokens = 0, tokens_charged = b.charge,
    -- An instant run is started by its settlement (start_at set, from QUEUED alone).
    started_at = COALESCE(r.started_at, b.start_at),
    attempts = r.attempts + (b.start_at IS NOT NULL)::int,
    completed_at = CASE WHEN b."to" = 'CANCELED' THEN r.completed_at ELSE b.at END,
    canceled_at = CASE WHEN b."to" = 'CANCELED' THEN b.at ELSE r.canceled_at END,
    units_completed = COALESCE(b.units_completed, r.units_completed),
    output = COALESCE(b.output, r.output),
    error_code = COALESCE(b.error_code, r.error_code),
    error_message = COALESCE(b.error_message, r.error_message)
  FROM b WHERE r.id = b.run_id AND r.id IN (SELECT id FROM locked)
    AND r.status::text = ANY(b."from") AND r.reserved_tokens = b.expected_reserved
    AND (b.expected_units IS NULL OR r.units_completed = b.expected_units)
  RETURNING r.id, r.account_id, r.api_key_id, r.mode, r.model_id, r.webhook_url, r.webhook_events, r.status,
            r.tokens_charged, r.created_at, r.started_at, b.at, b.event, b.run_body, b.endpoint_head,
            b.endpoint_tail, b.charge, b.charge_bd, b.charge_rd, b.charge_id, b.release, b.release_bd,
            b.release_rd, b.release_id, b.started_body, b.started_head, b.started_tail
), totals AS (
  SELECT account_id, sum(charge_bd + release_bd)::int AS bd, sum(charge_rd + release_rd)::int AS rd
  FROM settled GROUP BY account_id HAVING sum(charge + release) > 0
), account_locks AS MATERIALIZED (
  SELECT a.id FROM accounts a WHERE a.id IN (SELECT account_id FROM totals) ORDER BY a.id FOR NO KEY UPDATE
), accounts_moved AS (
  UPDATE accounts a SET balance = a.balance + t.bd, reserved = a.reserved + t.rd
  FROM totals t WHERE a.id = t.account_id AND a.id IN (SELECT id FROM account_locks)
), keys_refunded AS (
  -- A key's budget counter gets back what a run of its current period released (a run of an
  -- earlier period was counted in a counter that has been reset since).
  UPDATE api_keys k SET budget_used = GREATEST(0, k.budget_used - COALESCE((
      SELECT sum(s.release) FROM settled s
      WHERE s.api_key_id = k.id AND s.release > 0 AND s.created_at >= k.budget_period_start), 0))
  WHERE k.id IN (SELECT api_key_id FROM settled WHERE release > 0) AND k.budget_tokens IS NOT NULL
    AND k.account_id IN (SELECT id FROM account_locks)
), ledger AS (
  INSERT INTO ledger_entries (id, account_id, run_id, kind, amount, balance_delta, reserved_delta)
  SELECT charge_id, account_id, id, 'CHARGE'::"LedgerKind", charge, charge_bd, charge_rd FROM settled WHERE charge > 0
  UNION ALL
  SELECT release_id, account_id, id, 'RELEASE'::"LedgerKind", release, release_bd, release_rd
  FROM settled WHERE release > 0
), deliveries_made AS (
  INSERT INTO deliveries (id, account_id, mode, run_id, endpoint_id, url, event, body, created_at)
  SELECT svc_random_id('whd'), s.account_id, s.mode, s.id, e.id, e.url, 'run.started',
         s.started_head || to_json(e.id)::text || s.started_tail, s.started_at
  FROM settled s
  JOIN webhook_endpoints e ON e.account_id = s.account_id AND e.mode = s.mode AND e.status = 'active'
                          AND 'run.started' = ANY(e.events)
  WHERE s.started_body IS NOT NULL
  UNION ALL
  SELECT svc_random_id('whd'), s.account_id, s.mode, s.id, NULL, s.webhook_url, 'run.started', s.started_body,
         s.started_at
  FROM settled s
  WHERE s.started_body IS NOT NULL AND s.webhook_url IS NOT NULL AND 'run.started' = ANY(s.webhook_events)
  UNION ALL
  SELECT svc_random_id('whd'), s.account_id, s.mode, s.id, e.id, e.url, s.event,
         s.endpoint_head || to_json(e.id)::text || s.endpoint_tail, s.at
  FROM settled s
  JOIN webhook_endpoints e ON e.account_id = s.account_id AND e.mode = s.mode AND e.status = 'active'
                          AND s.event = ANY(e.events)
  UNION ALL
  SELECT svc_random_id('whd'), s.account_id, s.mode, s.id, NULL, s.webhook_url, s.event, s.run_body, s.at
  FROM settled s WHERE s.webhook_url IS NOT NULL AND s.event = ANY(s.webhook_events)
  RETURNING id, run_id
)
SELECT s.id, s.account_id, s.model_id, s.status, s.tokens_charged, s.created_at, s.started_at,
       COALESCE((SELECT array_agg(d.id) FROM deliveries_made d WHERE d.run_id = s.id), '{}') AS delivery_ids
FROM settled s`;

/**
 * Settles a batch of runs in one statement: each run moves to its terminal status only if it is
 * still in one of its `from` statuses with the expected reservation (so of two settlements of a
 * run exactly one wins), its account is charged and released, CHARGE and RELEASE are appended, and
 * the event's deliveries are recorded. UNIQUE (run_id, kind) on the ledger backs this up.
 * A run missing from the answer was settled by someone else. A plan with `start` (an instant run,
 * from QUEUED) also starts the run: started_at, its attempt, its run.started deliveries.
 */
export async function settleRuns(
  pool: pg.Pool | pg.PoolClient,
  settlements: readonly SettlementRow[],
): Promise<Map<string, SettledRun>> {
  const rows = settlements.map((s) => ({
    run_id: s.runId,
    from: s.from,
    to: s.to,
    expected_reserved: s.expectedReserved,
    expected_units: s.expectedUnitsCompleted ?? null,
    at: s.at.toISOString(),
    units_completed: s.unitsCompleted ?? null,
    output: s.output ?? null,
    error_code: s.errorCode ?? null,
    error_message: s.errorMessage ?? null,
    charge: s.charge.amount,
    charge_bd: s.charge.balanceDelta,
    charge_rd: s.charge.reservedDelta,
    release: s.release.amount,
    release_bd: s.release.balanceDelta,
    release_rd: s.release.reservedDelta,
    event: s.event,
    run_body: s.runBody,
    endpoint_head: s.endpointHead,
    endpoint_tail: s.endpointTail,
    // Made here rather than by svc_random_id in the statement: a SQL function call per ledger row
    // was a third of the statement's time.
    charge_id: s.charge.amount > 0 ? newId("led") : null,
    release_id: s.release.amount > 0 ? newId("led") : null,
    ...(s.start && {
      start_at: s.start.at.toISOString(),
      started_body: s.start.runBody,
      started_head: s.start.endpointHead,
      started_tail: s.start.endpointTail,
    }),
  }));
  const result = await pool.query({
    name: "runs_settle",
    text: SETTLE_RUNS,
    values: [JSON.stringify(rows), rows.map((r) => r.run_id)],
  });
  return new Map(
    result.rows.map((r) => [
      r.id as string,
      {
        id: r.id,
        accountId: r.account_id,
        modelId: r.model_id,
        status: r.status,
        tokensCharged: r.tokens_charged,
        createdAt: r.created_at,
        startedAt: r.started_at,
        deliveryIds: r.delivery_ids,
      } satisfies SettledRun,
    ]),
  );
}

// QUEUED too: a run sent to its server as its slot was leased (before its job's start is
// committed) may already be making outputs; dropping them would hide them from its stream.
const DELIVER_UNITS = `
UPDATE runs SET units_completed = GREATEST(units_completed, LEAST(units_requested, $2))
WHERE id = $1 AND status IN ('QUEUED', 'EXECUTING') RETURNING units_completed`;

/**
 * Records that the client is about to be shown outputs worth `units` of a run not yet ended (a
 * progress report), before it is shown them: a cancel then charges them. False when the run has
 * ended, and the report must not be shown (its outputs would be free).
 */
export async function recordUnitsDelivered(pool: pg.Pool, runId: string, units: number): Promise<boolean> {
  const result = await pool.query({
    name: "runs_deliver_units",
    text: DELIVER_UNITS,
    values: [runId, units],
  });
  return result.rowCount === 1;
}

/** What a progress report's outputs are counted against: the run's model runner and units asked for. */
export async function runOutputBasis(
  pool: pg.Pool,
  runId: string,
): Promise<{ runner: RunnerSettings; unitsRequested: number } | null> {
  const result = await pool.query<{ runner: unknown; units_requested: number }>({
    name: "runs_output_basis",
    text: "SELECT m.runner, r.units_requested FROM runs r JOIN models m ON m.id = r.model_id WHERE r.id = $1",
    values: [runId],
  });
  const row = result.rows[0];
  return row ? { runner: parseRunner(row.runner), unitsRequested: row.units_requested } : null;
}

/** The lifecycle's statements, by the transition each applies. */
export type RunTransition = "insert" | "start" | "settle";

const WITH_NOTHING: Record<RunTransition, (client: pg.PoolClient) => Promise<unknown>> = {
  insert: (client) => insertRuns(client, []),
  start: (client) => startRuns(client, []),
  settle: (client) => settleRuns(client, []),
};

// Postgres plans a prepared statement afresh on each of its first five executions on a connection
// and then keeps a generic plan if that costs no more (plancache.c): the sixth plans no more.
const EXECUTIONS_UNTIL_PLANNED = 6;

/**
 * Opens `connections` connections of the pool and readies the transitions' statements on each,
 * which a new process would otherwise do in its first requests under load: a named statement is
 * parsed on a connection's first execution and planned again on each of the first five (per
 * statement and connection about 8 ms the first time, 1-1.5 ms the next four, 0.4 ms after that).
 * With empty batches they change nothing. Behind a transaction-mode pooler statements are not kept,
 * so the connections are only opened. A connection that could not be opened or readied is left to
 * requests; the first such error is thrown once the others are back in the pool.
 */
export async function primeRunTransitions(
  pool: pg.Pool,
  connections: number,
  transitions: readonly RunTransition[],
): Promise<void> {
  const opened = await Promise.allSettled(Array.from({ length: connections }, () => pool.connect()));
  const clients = opened.flatMap((c) => (c.status === "fulfilled" ? [c.value] : []));
  const statements = keepsPreparedStatements(pool) ? transitions : [];
  const readied = await Promise.allSettled(
    clients.map(async (client) => {
      try {
        for (const transition of statements)
          for (let i = 0; i < EXECUTIONS_UNTIL_PLANNED; i++) await WITH_NOTHING[transition](client);
        client.release();
      } catch (error) {
        // A connection that failed here is not given back to be reused.
        client.release(error as Error);
        throw error;
      }
    }),
  );
  const failed = [...opened, ...readied].find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}
