// While a run executes: the units its client has been shown (what a cancel charges), and what its
// progress reports' outputs are counted against.
import type pg from "pg";
import type { RunnerSettings } from "@svc/core";
import { parseRunner } from "../catalogueFields.js";

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
