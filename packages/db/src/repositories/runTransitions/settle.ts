// A run's end (completed, failed, canceled, timed out), charged and released, for a batch of runs.
import type pg from "pg";
import { newId, type RunStatus, type SettlementPlan } from "@svc/core";
import { eventDeliveries } from "./deliveries.js";

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
  RETURNING r.id, r.account_id, r.api_key_id, r.mode, r.model_id, r.batch_id, r.webhook_url, r.webhook_events, r.status,
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
), batch_locks AS MATERIALIZED (
  -- After the accounts, in id order, as every statement that locks more than one batch does.
  SELECT bt.id FROM batches bt WHERE bt.id IN (SELECT batch_id FROM settled) ORDER BY bt.id FOR NO KEY UPDATE
), batches_counted AS (
  -- A batch item's end moves its batch's tally (core's BatchTally): every run's end is a
  -- settlement from QUEUED or EXECUTING, so each is counted once.
  UPDATE batches bt SET runs_completed = bt.runs_completed + c.completed, runs_failed = bt.runs_failed + c.failed,
    tokens_charged = bt.tokens_charged + c.tokens
  FROM (
    SELECT batch_id, count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed,
           count(*) FILTER (WHERE status <> 'COMPLETED')::int AS failed, sum(tokens_charged)::int AS tokens
    FROM settled WHERE batch_id IS NOT NULL GROUP BY batch_id
  ) c
  WHERE bt.id = c.batch_id AND bt.id IN (SELECT id FROM batch_locks)
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
  ${eventDeliveries({
    source: "settled",
    event: "'run.started'",
    endpointBody: "s.started_head || to_json(e.id)::text || s.started_tail",
    ownBody: "s.started_body",
    at: "s.started_at",
    where: "s.started_body IS NOT NULL",
  })}
  UNION ALL
  ${eventDeliveries({
    source: "settled",
    event: "s.event",
    endpointBody: "s.endpoint_head || to_json(e.id)::text || s.endpoint_tail",
    ownBody: "s.run_body",
    at: "s.at",
  })}
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
