// A batch line's run is made by the creation statement only while the line waits, and the same
// statement admits the line: on a real database, with passes that meet and lines that end first.
import { readFileSync } from "node:fs";
import { loadCatalogue, seedCatalogue } from "../../catalogue.js";
import { sqlPool } from "../../client.js";
import { repoPaths } from "../../paths.js";
import { createTestDatabase, testRunRow, type TestDatabase } from "../../testing/database.js";
import { createAccount, grantTokens, ledgerTotals } from "../accounts.js";
import { createApiKey } from "../apiKeys.js";
import { addBatchItems, createBatchRow, endPendingItems, newBatchId, openBatch } from "../batches.js";
import { insertRuns, type RunRow } from "./insert.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await seedCatalogue(database.db, await loadCatalogue());
});
afterAll(async () => {
  await database.drop();
});

/** An account holding `tokens`, its key, and an open batch of `lines` waiting lines of acme/echo. */
async function batchOf(lines: number, tokens: number) {
  const account = await createAccount(database.db, "batch lines");
  if (tokens) await grantTokens(database.db, account.id, tokens);
  const key = (await createApiKey(database.db, account.id, "live", "k", 5))!.record;
  const id = newBatchId();
  await createBatchRow(
    database.db,
    { accountId: account.id, mode: "live" },
    {
      id,
      apiKeyId: key.id,
      modelId: "acme/echo",
      api: "native",
      endpoint: null,
      inputFileId: null,
      webhookUrl: null,
      metadata: null,
      discountPercent: 50,
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  );
  await addBatchItems(
    database.db,
    id,
    Array.from({ length: lines }, (_, i) => ({
      line: i + 1,
      customId: `c${i + 1}`,
      input: { prompt: `line ${i + 1}` },
      weights: [],
    })),
  );
  await openBatch(database.db, id, lines, 0);
  /** A run row for one of its lines, reserving a token. */
  const row = (line: number): RunRow =>
    testRunRow(
      { accountId: account.id, apiKeyId: key.id },
      { input: { prompt: `line ${line}` }, priority: "batch", batchItem: { batchId: id, line } },
    );
  /** A cancel's end of one waiting line. */
  const cancel = (line: number) =>
    endPendingItems(database.db, id, "canceled", { code: "canceled", message: "x", param: null }, [line]);
  const state = async () => ({
    dropped: (await database.db.batch.findUniqueOrThrow({ where: { id } })).dropped,
    items: await database.db.batchItem.findMany({
      where: { batchId: id },
      orderBy: { line: "asc" },
      select: { line: true, state: true, runId: true },
    }),
    runs: await database.db.run.findMany({ where: { batchId: id }, select: { id: true } }),
    admitted: (await database.db.batch.findUniqueOrThrow({ where: { id } })).admitted,
    ledger: await ledgerTotals(database.db, account.id),
  });
  return { id, row, cancel, state };
}

describe("a batch line's creation", () => {
  it("when two passes make runs for the same lines at once, then each line is one run, admitted with it, and reserved once", async () => {
    const batch = await batchOf(2, 10);
    const first = await sqlPool(database.db).connect();
    try {
      await first.query("BEGIN");
      const rows = [batch.row(1), batch.row(2)];
      const made = await insertRuns(first, rows);
      expect(made.outcomes.map((o) => o.kind)).toEqual(["created", "created"]);
      // The second pass's statement waits for the lines' locks, then finds them admitted.
      const second = insertRuns(sqlPool(database.db), [batch.row(2), batch.row(1)]);
      const waiting = async () =>
        (
          await sqlPool(database.db).query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
          )
        ).rows[0]!.n;
      while ((await waiting()) === 0) await new Promise((r) => setTimeout(r, 5));
      await first.query("COMMIT");
      expect((await second).outcomes.map((o) => o.kind)).toEqual(["taken", "taken"]);
      const after = await batch.state();
      expect(after.items).toEqual([
        { line: 1, state: "admitted", runId: rows[0]!.id },
        { line: 2, state: "admitted", runId: rows[1]!.id },
      ]);
      expect(after.runs).toHaveLength(2);
      expect(after.admitted).toBe(2);
      expect(after.ledger.cached).toEqual({ balance: 10, reserved: 2 });
      expect(after.ledger.ledger).toEqual(after.ledger.cached);
    } finally {
      first.release();
    }
  });

  it("when a line was canceled before its run is made, then it is taken: no run, nothing reserved, the line as the cancel left it", async () => {
    const batch = await batchOf(2, 10);
    await batch.cancel(1);
    const { outcomes } = await insertRuns(sqlPool(database.db), [batch.row(1), batch.row(2)]);
    expect(outcomes.map((o) => o.kind)).toEqual(["taken", "created"]);
    const after = await batch.state();
    expect(after.items.map((i) => i.state)).toEqual(["canceled", "admitted"]);
    expect(after.runs).toHaveLength(1);
    expect(after.admitted).toBe(1);
    expect(after.ledger.cached).toEqual({ balance: 10, reserved: 1 });
  });

  it("when the account cannot cover a line's run, then the line keeps waiting, and is made once tokens arrive", async () => {
    const batch = await batchOf(1, 0);
    expect((await insertRuns(sqlPool(database.db), [batch.row(1)])).outcomes[0]?.kind).toBe("unreserved");
    expect((await batch.state()).items[0]).toEqual({ line: 1, state: "pending", runId: null });
    const account = (await database.db.batch.findUniqueOrThrow({ where: { id: batch.id } })).accountId;
    await grantTokens(database.db, account, 1);
    const row = batch.row(1);
    expect((await insertRuns(sqlPool(database.db), [row])).outcomes[0]?.kind).toBe("created");
    const after = await batch.state();
    expect(after.items[0]).toEqual({ line: 1, state: "admitted", runId: row.id });
    expect(after.admitted).toBe(1);
  });

  it("when the code before made a line's run but died before marking the line, then the upgrade's migration admits the line to that run, once", async () => {
    const batch = await batchOf(2, 10);
    // As the code before made them: a run under the line's Idempotency-Key, the line not marked;
    // line 2 canceled meanwhile (it has a run, which the cancel stops: admitted, not dropped).
    const before = [1, 2].map((line) => ({
      ...batch.row(line),
      batchItem: undefined,
      idempotencyKey: `batch:${batch.id}:${line}`,
    }));
    await insertRuns(sqlPool(database.db), before);
    await sqlPool(database.db).query("UPDATE runs SET batch_id = $1 WHERE id = ANY($2)", [
      batch.id,
      before.map((r) => r.id),
    ]);
    await batch.cancel(2);
    const migration = readFileSync(
      `${repoPaths.migrations}/20261130120000_batch_lines_keyed_runs/migration.sql`,
      "utf8",
    );
    for (let i = 0; i < 2; i++) await sqlPool(database.db).query(migration);
    const after = await batch.state();
    expect(after.items).toEqual([
      { line: 1, state: "admitted", runId: before[0]!.id },
      { line: 2, state: "admitted", runId: before[1]!.id },
    ]);
    expect({ admitted: after.admitted, dropped: after.dropped }).toEqual({ admitted: 2, dropped: 0 });
    // The code from now on makes it no second run.
    expect((await insertRuns(sqlPool(database.db), [batch.row(1)])).outcomes[0]?.kind).toBe("taken");
  });
});
