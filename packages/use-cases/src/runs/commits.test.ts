import { planSettlement } from "@svc/core";
import {
  createDb,
  insertRuns,
  loadCatalogue,
  seedCatalogue,
  settleRuns,
  sqlPool,
  startRuns,
  type Db,
} from "@svc/db";
import { createAccountWithKeys, createTestDatabase, testRunRow, type TestDatabase } from "@svc/testkit";

/** A pool, or one connection checked out of it. */
type Sql = Parameters<typeof insertRuns>[0];
type Connection = Extract<Sql, { release: unknown }>;

// Which run statements wait for their WAL to reach the disk. A creation (it reserves tokens and is
// answered to the client) and a settlement (it moves tokens) must; a start need not (startRuns
// says why), and its setting must end with its own transaction: a pooled connection that kept it
// would commit the next creation or settlement unflushed too.
describe("how the run statements commit", () => {
  let database: TestDatabase;
  let db: Db;
  let accountId: string;
  let keyId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedCatalogue(database.db, await loadCatalogue());
    const made = await createAccountWithKeys(database.db, 1000);
    accountId = made.account.id;
    keyId = made.liveKeyId;
    // One connection: a setting left behind by a statement would be seen by the next.
    db = createDb({ url: database.url, poolSize: 1 });
  });
  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  const create = async (sql: Sql) => {
    const row = testRunRow({ accountId, apiKeyId: keyId });
    const { outcomes } = await insertRuns(sql, [row]);
    expect(outcomes[0]?.kind).toBe("created");
    return row.id;
  };
  const synchronousCommit = async (sql: Sql) =>
    (await sql.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0]?.synchronous_commit;

  /** Runs `work` in a transaction of the one connection and reads the setting before its commit. */
  const settingWithin = async (work: (client: Connection) => Promise<void>) => {
    const client = await sqlPool(db).connect();
    try {
      await client.query("BEGIN");
      await work(client);
      const within = await synchronousCommit(client);
      await client.query("COMMIT");
      return { within, after: await synchronousCommit(client) };
    } finally {
      client.release();
    }
  };

  it("when runs start, their transaction commits without waiting for the flush, and only it", async () => {
    const id = await create(sqlPool(db));
    const setting = await settingWithin(async (client) => {
      expect((await startRuns(client, [id])).get(id)?.attempts).toBe(1);
    });
    expect(setting).toEqual({ within: "off", after: "on" });
    // As the run path calls it, autocommitted: the connection is left as it was.
    const next = await create(sqlPool(db));
    expect((await startRuns(sqlPool(db), [next])).get(next)?.attempts).toBe(1);
    expect(await synchronousCommit(sqlPool(db))).toBe("on");
  });

  it("when runs are created or settled, their transaction waits for the flush", async () => {
    const id = await create(sqlPool(db));
    await startRuns(sqlPool(db), [id]);
    const setting = await settingWithin(async (client) => {
      await create(client);
      const plan = planSettlement(
        { id, modelId: "acme/echo", reservedTokens: 1 },
        ["EXECUTING"],
        { to: "COMPLETED", output: { echo: "hello" }, unitsCompleted: 1, charge: 1 },
        new Date(),
      );
      const settled = await settleRuns(client, [{ ...plan, runId: id }]);
      expect(settled.get(id)?.status).toBe("COMPLETED");
    });
    expect(setting).toEqual({ within: "on", after: "on" });
  });
});
