import { createServer, type Server, type Socket } from "node:net";
import { PassThrough } from "node:stream";
import { baseEnvSchema, parseEnv } from "@svc/config";
import { createDb, dbFromConfig, sqlPool, type Db } from "@svc/db";
import { createLogger } from "@svc/logger";
import { createProducer, createRedis, type Producer, type RedisClient } from "@svc/queue";
import {
  createTestDatabase,
  deleteRedisPrefix,
  seedTestModels,
  testQueuePrefix,
  TEST_REDIS_URL,
  type TestDatabase,
  waitFor,
} from "@svc/testkit";
import { primeProcess } from "./prime.js";

const captured = () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    ),
  );
  return { lines, logger: createLogger({ service: "api", level: "debug", stream }) };
};

describe("priming a new API process", () => {
  let database: TestDatabase;
  let redis: RedisClient;
  let queues: Producer;
  const prefix = testQueuePrefix();
  beforeAll(async () => {
    database = await createTestDatabase();
    await seedTestModels(database.db);
    redis = createRedis(TEST_REDIS_URL, "producer");
    queues = createProducer(redis, prefix);
  });
  afterAll(async () => {
    await queues.close();
    redis.disconnect();
    await deleteRedisPrefix(prefix);
    await database.drop();
  });

  it("when it is primed, then its pool holds the connections run creation uses and every active model's validator is compiled", async () => {
    const db = createDb({ url: database.url, poolSize: 5 });
    try {
      const { lines, logger } = captured();
      await primeProcess({ db, redis, queues, logger }, 3, 5_000);
      const pool = sqlPool(db);
      expect(pool.totalCount).toBe(3);
      expect(pool.idleCount).toBe(3);
      const active = await database.db.model.count({ where: { status: "active" } });
      expect(active).toBeGreaterThan(0);
      await new Promise((r) => setImmediate(r));
      expect(lines).toContainEqual(
        expect.objectContaining({ message: "process primed", connections: 3, validators: active }),
      );
    } finally {
      await db.$disconnect();
    }
  });

  it("when the process is primed, then its connections stay open however long it is quiet, unless DATABASE_IDLE_TIMEOUT_MS says otherwise", async () => {
    // node-postgres's own default closed them after 10 s, priming and all.
    const config = (env: Record<string, string>) =>
      parseEnv(baseEnvSchema, { DATABASE_URL: database.url, ...env });
    const kept = dbFromConfig(config({}), 5);
    // Long enough that none closes before priming has opened all three on a busy machine (at 100 ms
    // one sometimes had: CI saw 2).
    const released = dbFromConfig(config({ DATABASE_IDLE_TIMEOUT_MS: "1000" }), 5);
    try {
      const { logger } = captured();
      await primeProcess({ db: kept, redis, queues, logger }, 3, 5_000);
      await primeProcess({ db: released, redis, queues, logger }, 3, 5_000);
      expect(sqlPool(released).totalCount).toBe(3);
      await waitFor(async () => sqlPool(released).totalCount === 0, {
        what: "idle connections closed",
        timeoutMs: 10_000,
      });
      expect(sqlPool(kept).options.idleTimeoutMillis).toBe(0); // pg-pool: 0 never closes them
      expect(sqlPool(kept).totalCount).toBe(3);
    } finally {
      await kept.$disconnect();
      await released.$disconnect();
    }
  });

  it("when Postgres does not answer, then priming gives up at its deadline, says so and does not throw", async () => {
    // Accepts connections and never answers: a connection attempt hangs until its own timeout.
    const held = new Set<Socket>();
    const silent: Server = createServer((s) => held.add(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as { port: number }).port;
    let db: Db | undefined;
    try {
      db = createDb({ url: `postgresql://postgres@127.0.0.1:${port}/nowhere`, poolSize: 2 });
      const { lines, logger } = captured();
      const began = Date.now();
      await primeProcess({ db, redis, queues, logger }, 2, 300);
      expect(Date.now() - began).toBeLessThan(4_000);
      await new Promise((r) => setImmediate(r));
      expect(lines).toContainEqual(
        expect.objectContaining({ level: "warn", message: "priming the process is slow; serving meanwhile" }),
      );
    } finally {
      for (const s of held) s.destroy();
      silent.close();
      await db?.$disconnect().catch(() => {});
    }
  });

  it("when Postgres refuses connections, then priming says so and does not throw", async () => {
    const db = createDb({ url: "postgresql://postgres@127.0.0.1:1/nowhere", poolSize: 2 });
    try {
      const { lines, logger } = captured();
      await primeProcess({ db, redis, queues, logger }, 2, 5_000);
      await new Promise((r) => setImmediate(r));
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "warn",
          message: "priming the process failed; its first requests will do it",
        }),
      );
    } finally {
      await db.$disconnect().catch(() => {});
    }
  });
});
