import {
  createTestDatabase,
  deleteRedisPrefix,
  freePort,
  spawnApp,
  testQueuePrefix,
  TEST_REDIS_URL,
  TEST_SECRETS_KEY,
  type TestDatabase,
} from "@svc/testkit";

describe("worker process", () => {
  let database: TestDatabase;
  const prefix = testQueuePrefix();

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await deleteRedisPrefix(prefix);
    await database.drop();
  });

  it("when started, then it reports ready; when sent SIGTERM, then it stops cleanly with exit code 0", async () => {
    const worker = spawnApp("worker", {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      SECRETS_KEY: TEST_SECRETS_KEY,
      METRICS_PORT: String(await freePort()),
      COG_CALLBACK_URL: "http://127.0.0.1:0",
      COG_CALLBACK_PORT: "0",
      LOG_LEVEL: "debug",
    });
    const ready = await worker.waitForLine((l) => l.message === "worker ready");
    expect(ready).toMatchObject({ service: "worker", level: "info", queue_prefix: prefix });
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.lines.map((l) => l.message)).toEqual(
      expect.arrayContaining(["worker shutting down", "worker stopped"]),
    );
    // Readiness says "draining" first; the processors finish before the cancel subscriber and the
    // Cog callbacks they need go; the connections go last.
    expect(
      worker.lines.filter((l) => l.message === "worker component stopped").map((l) => l.component),
    ).toEqual([
      "readiness",
      "housekeeping",
      "heartbeat",
      "hand-offs",
      "processors",
      "cog callbacks",
      "cancel subscriber",
      "metrics",
      "dispatcher",
      "run pipelines",
      "queues",
      "runners",
      "output store",
      "tracing",
      "connections",
    ]);
  });

  it("when the configuration is invalid, then it exits at once naming the variable", async () => {
    const worker = spawnApp("worker", { DATABASE_URL: "not a url", WORKER_CONCURRENCY: "0" });
    expect(await worker.exited).toBe(78);
    const stderr = worker.lines.map((l) => l.stderr ?? "").join("");
    expect(stderr).toMatch(/DATABASE_URL/);
    expect(stderr).toMatch(/WORKER_CONCURRENCY/);
  });
});
