// A run's start (QUEUED -> EXECUTING, or a retry of an EXECUTING run), for a batch of runs.
import type pg from "pg";
import { startedTemplates, type Mode, type RunnerSettings } from "@svc/core";
import { parseRunner } from "../catalogueFields.js";
import { eventDeliveries } from "./deliveries.js";

/** What the worker needs to execute a run, returned by the statement that started it. */
export interface StartedRun {
  id: string;
  accountId: string;
  mode: Mode;
  modelId: string;
  input: Record<string, unknown>;
  unitsRequested: number;
  reservedTokens: number;
  /** Its price for the units it asked for, fixed at creation (core's runCharge). */
  estimatedTokens: number;
  attempts: number;
  createdAt: Date;
  startedAt: Date;
  deadlineAt: Date;
  runner: RunnerSettings;
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
  RETURNING r.id, r.account_id, r.mode, r.model_id, r.input, r.units_requested, r.reserved_tokens,
            r.estimated_tokens, r.attempts,
            r.created_at, r.started_at, r.deadline_at, m.runner, m.execution_timeout_ms,
            r.webhook_url, r.webhook_events, r.trace_parent
), first AS (
  SELECT s.*, to_json(id)::text AS id_json, to_json(model_id)::text AS model_json,
         to_json(to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text AS at_json
  FROM started s WHERE s.attempts = 1
), deliveries_made AS (
  INSERT INTO deliveries (id, account_id, mode, run_id, endpoint_id, url, event, body, created_at)
  ${eventDeliveries({
    source: "first",
    event: "'run.started'",
    endpointBody:
      "replace(replace(replace(replace($3, $7, to_json(e.id)::text), $4, s.id_json), $5, s.model_json), $6, s.at_json)",
    ownBody: "replace(replace(replace($2, $4, s.id_json), $5, s.model_json), $6, s.at_json)",
    at: "s.started_at",
  })}
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
        estimatedTokens: r.estimated_tokens,
        attempts: r.attempts,
        createdAt: r.created_at,
        startedAt: r.started_at,
        deadlineAt: r.deadline_at,
        runner: parseRunner(r.runner),
        executionTimeoutMs: r.execution_timeout_ms,
        dbNow: r.db_now,
        deliveryIds: r.delivery_ids,
        traceParent: r.trace_parent,
      } satisfies StartedRun,
    ]),
  );
}
