import { sharesServerSessions } from "@svc/db";
import {
  createTestDatabase,
  freePort,
  serviceEnv,
  spawnApp,
  startPgBouncer,
  stopApps,
  testQueuePrefix,
  type PgBouncer,
  type SpawnedApp,
  type TestDatabase,
} from "@svc/testkit";

// A process pointed at a transaction-mode pooler (a real PgBouncer) without DATABASE_POOLING=transaction
// would fail about half of its requests: it refuses to start, with one line naming the setting.
describe("a pooler in transaction mode without its setting", () => {
  let database: TestDatabase;
  let pooler: PgBouncer;
  const apps: SpawnedApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    pooler = await startPgBouncer(database.url);
  });
  afterAll(async () => {
    await stopApps(...apps);
    await pooler?.stop();
    await database?.drop();
  });

  it("when connections are probed, then a transaction-mode PgBouncer shares server sessions and Postgres itself does not", async () => {
    expect(await sharesServerSessions(pooler.urlFor(database.url))).toBe(true);
    expect(await sharesServerSessions(database.url)).toBe(false);
  });

  it.each(["api", "worker"] as const)(
    "when the %s starts behind it with DATABASE_POOLING unset, then it exits 1 with one line naming DATABASE_POOLING",
    async (name) => {
      const app = spawnApp(name, {
        ...serviceEnv(pooler.urlFor(database.url), testQueuePrefix()),
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
      });
      apps.push(app);
      expect(await app.exited).toBe(1);
      const refusal = app.lines.find((l) => l.level === "error");
      expect(refusal?.message).toMatch(/DATABASE_POOLING=transaction/);
      expect(app.lines.some((l) => l.message === "api listening" || l.message === "worker ready")).toBe(
        false,
      );
    },
  );

  it("when DATABASE_POOLING=transaction is set, then the API starts behind it", async () => {
    const app = spawnApp("api", {
      ...serviceEnv(pooler.urlFor(database.url), testQueuePrefix()),
      DATABASE_POOLING: "transaction",
      PORT: String(await freePort()),
      HOST: "127.0.0.1",
    });
    apps.push(app);
    await app.waitForLine((l) => l.message === "api listening");
  });
});
