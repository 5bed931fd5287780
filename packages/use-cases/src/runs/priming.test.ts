import { createDb, loadCatalogue, primeRunTransitions, seedCatalogue, sqlPool, type Db } from "@svc/db";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";

interface Prepared {
  name: string;
  custom_plans: number;
  generic_plans: number;
}

/** What each of the pool's `n` connections has prepared (all of them checked out at once). */
async function preparedOnEach(pool: ReturnType<typeof sqlPool>, n: number): Promise<Prepared[][]> {
  const clients = await Promise.all(Array.from({ length: n }, () => pool.connect()));
  try {
    return await Promise.all(
      clients.map(
        async (c) =>
          (
            await c.query<Prepared>(
              `SELECT name, custom_plans::int, generic_plans::int FROM pg_prepared_statements
               WHERE name LIKE 'runs\\_%' ORDER BY name`,
            )
          ).rows,
      ),
    );
  } finally {
    for (const c of clients) c.release();
  }
}

// A new process readies the run statements on the connections it will use, so that its first
// requests under load neither parse nor plan them (primeRunTransitions says why).
describe("readying the run statements of a new process", () => {
  let database: TestDatabase;
  const dbs: Db[] = [];
  const made = (options: Omit<Parameters<typeof createDb>[0], "url">) => {
    const db = createDb({ url: database.url, ...options });
    dbs.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedCatalogue(database.db, await loadCatalogue());
  });
  afterAll(async () => {
    await Promise.all(dbs.map((db) => db.$disconnect()));
    await database.drop();
  });

  it("when a pool is primed, then each of its connections holds the statements, past planning them, and nothing changed", async () => {
    const pool = sqlPool(made({ poolSize: 3 }));
    await primeRunTransitions(pool, 3, ["insert", "start", "settle"]);
    expect(pool.totalCount).toBe(3);
    expect(pool.idleCount).toBe(3);
    const each = await preparedOnEach(pool, 3);
    for (const prepared of each)
      expect(prepared).toEqual(
        ["runs_insert", "runs_settle", "runs_start"].map((name) => ({
          name,
          custom_plans: 5,
          generic_plans: 1,
        })),
      );
    const { rows } = await pool.query<{ n: number }>(
      "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM ledger_entries) + (SELECT count(*) FROM deliveries) AS n",
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it("when only some transitions are asked for, then only their statements are readied", async () => {
    const pool = sqlPool(made({ poolSize: 1 }));
    await primeRunTransitions(pool, 1, ["insert"]);
    const [prepared] = await preparedOnEach(pool, 1);
    expect(prepared!.map((p) => p.name)).toEqual(["runs_insert"]);
  });

  it("when the pool is behind a transaction-mode pooler, then its connections are opened and nothing is prepared", async () => {
    const pool = sqlPool(made({ poolSize: 2, pooling: "transaction" }));
    await primeRunTransitions(pool, 2, ["insert", "start", "settle"]);
    expect(pool.totalCount).toBe(2);
    expect(await preparedOnEach(pool, 2)).toEqual([[], []]);
  });

  it("when the database cannot be reached, then priming fails and leaves no connection behind", async () => {
    const unreachable = createDb({ url: "postgresql://postgres@127.0.0.1:1/none", poolSize: 2 });
    dbs.push(unreachable);
    const pool = sqlPool(unreachable);
    await expect(primeRunTransitions(pool, 2, ["insert"])).rejects.toThrow();
    expect(pool.totalCount).toBe(0);
  });
});
