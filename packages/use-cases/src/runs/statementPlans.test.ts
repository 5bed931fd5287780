import {
  createDb,
  insertRuns,
  loadCatalogue,
  overdueRuns,
  runsPastCancelAt,
  runsToSweep,
  seedCatalogue,
  settleRuns,
  sqlPool,
  startRuns,
  type Db,
} from "@svc/db";
import { createAccountWithKeys, createTestDatabase, testRunRow, type TestDatabase } from "@svc/testkit";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/** Every scan of a table in a plan tree (not its updates), as "node type via index". */
function scansOf(table: string, node: PlanNode, out: string[] = []): string[] {
  if (node["Relation Name"] === table && node["Node Type"].endsWith("Scan"))
    out.push(`${node["Node Type"]} via ${node["Index Name"] ?? "-"}`);
  for (const child of node.Plans ?? []) scansOf(table, child, out);
  return out;
}

/**
 * A database whose runs table holds `size` runs (1% QUEUED, 1% EXECUTING, the rest COMPLETED,
 * half with an Idempotency-Key), analyzed unless `analyzed` is false (a new database, before
 * autovacuum's first look), and one connection that caches generic plans: the plans a long-lived
 * connection keeps for the statements it has prepared.
 */
function plannedOn(size: number, { analyzed = true } = {}) {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedCatalogue(database.db, await loadCatalogue());
    const { account, liveKeyId } = await createAccountWithKeys(database.db, 1000);
    // One connection: the statements prepared by a call are the ones explained after it.
    db = createDb({ url: database.url, poolSize: 1 });
    await sqlPool(db).query(
      `INSERT INTO runs (id, account_id, api_key_id, mode, model_id, status, input, units_requested,
                         estimated_tokens, created_at, started_at, completed_at, deadline_at, cancel_at,
                         idempotency_key)
       SELECT 'run_plan' || g, $1, $2, 'live', 'acme/echo',
              (CASE WHEN g % 100 = 0 THEN 'QUEUED' WHEN g % 100 = 1 THEN 'EXECUTING' ELSE 'COMPLETED' END)::"RunStatus",
              '{}', 1, 1, now() - g * interval '1 second', now(), now(), now() + interval '1 hour',
              CASE WHEN g % 7 = 0 THEN now() + interval '1 hour' END, CASE WHEN g % 2 = 0 THEN 'key' || g END
       FROM generate_series(1, $3::int) g`,
      [account.id, liveKeyId, size],
    );
    if (analyzed) await sqlPool(db).query("ANALYZE runs");
    await sqlPool(db).query("SET plan_cache_mode = force_generic_plan");
  });
  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  return {
    db: () => db,
    /** The scans of a table in the generic plan of a statement this connection has prepared. */
    async scans(name: string, table = "runs"): Promise<string[]> {
      const pool = sqlPool(db);
      const { rows } = await pool.query<{ n: number }>(
        "SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = $1",
        [name],
      );
      expect(rows).toHaveLength(1);
      const args = Array.from({ length: rows[0]!.n }, () => "NULL").join(", ");
      const explained = await pool.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE ${name}(${args})`,
      );
      return scansOf(table, explained.rows[0]!["QUERY PLAN"][0].Plan);
    },
  };
}

// A creation with an Idempotency-Key looks its key up among the account's runs. Written as a
// plain EXISTS, the planner turned the lookup into a hash of every run (one sequential scan of
// the table per batch) whenever it guessed that cheaper than a probe per run of the batch: in any
// table below ~15,000 runs, analyzed or not.
const creationLooksUpKeysByIndex = (plans: ReturnType<typeof plannedOn>) =>
  it("when runs are created, an Idempotency-Key is looked up through its unique index", async () => {
    await insertRuns(sqlPool(plans.db()), []);
    expect(await plans.scans("runs_insert")).toEqual([
      "Index Only Scan via runs_account_id_mode_idempotency_key_key",
    ]);
    // Interactive runs' statement reads no batch line; a batch line is probed by its key, and
    // admitted by its address: never a scan of every line.
    expect(await plans.scans("runs_insert", "batch_items")).toEqual([]);
    await insertRuns(sqlPool(plans.db()), [
      testRunRow(
        { accountId: "acct_none", apiKeyId: "key_none" },
        { batchItem: { batchId: "batch_none", line: 1 } },
      ),
    ]);
    expect(await plans.scans("runs_insert_lines", "batch_items")).toEqual([
      "Index Scan via batch_items_batch_id_state_line_idx",
      "Tid Scan via -",
    ]);
  });

// A start or a settlement finds its runs by id. An index on status let the planner AND it with the
// primary key, reading the entry of every open run (dead ones too, until vacuum) at each start;
// and a plan cached while the table was new (every table is small then) scanned or hashed every
// run for each batch until autovacuum first analyzed the table.
const transitionsProbeThePrimaryKey = (plans: ReturnType<typeof plannedOn>) => {
  it("when runs start, each is found through the primary key alone", async () => {
    await startRuns(sqlPool(plans.db()), []);
    const found = await plans.scans("runs_start");
    expect(found.length).toBeGreaterThan(0);
    for (const scan of found) expect(scan).toMatch(/via runs_pkey$/);
  });

  it("when runs are settled, each is found through the primary key alone", async () => {
    await settleRuns(sqlPool(plans.db()), []);
    const found = await plans.scans("runs_settle");
    expect(found.length).toBeGreaterThan(0);
    for (const scan of found) expect(scan).toMatch(/via runs_pkey$/);
  });
};

// The statements the run path and the sweepers prepare, planned as an established database plans
// them.
describe("run statements on an established runs table", () => {
  const plans = plannedOn(20_000);

  creationLooksUpKeysByIndex(plans);
  transitionsProbeThePrimaryKey(plans);

  it("when the sweepers look for stale, overdue or expiring runs, each reads only its partial index", async () => {
    await runsToSweep(plans.db(), "QUEUED", new Date(), 10);
    await runsToSweep(plans.db(), "EXECUTING", new Date(), 10);
    await overdueRuns(plans.db(), new Date(), 10);
    await runsPastCancelAt(plans.db(), new Date(), 10);
    expect(await plans.scans("runs_queued_before")).toEqual(["Index Scan via runs_queued_created_at_idx"]);
    expect(await plans.scans("runs_executing_before")).toEqual([
      "Index Scan via runs_executing_deadline_at_idx",
    ]);
    expect(await plans.scans("runs_overdue")).toEqual(["Index Scan via runs_executing_deadline_at_idx"]);
    expect(await plans.scans("runs_past_cancel_at")).toEqual(["Index Scan via runs_open_cancel_at_idx"]);
  });
});

describe("run statements on a small deployment's runs table", () => {
  const plans = plannedOn(2_000);

  creationLooksUpKeysByIndex(plans);
  transitionsProbeThePrimaryKey(plans);
});

// What a new deployment's first statements cache, and keep until autovacuum first analyzes runs
// (up to a minute, while the table grows at the rate runs are made).
describe("run statements on a new database", () => {
  const plans = plannedOn(0, { analyzed: false });

  creationLooksUpKeysByIndex(plans);
  transitionsProbeThePrimaryKey(plans);
});
