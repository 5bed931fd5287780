import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { loadWorkerConfig, type WorkerConfig } from "@svc/config";
import { createDb, ledgerTotals, type Db } from "@svc/db";
import { createLogger } from "@svc/logger";
import {
  createProducer,
  createRedis,
  createRunsQueue,
  whenRedisReady,
  type Producer,
  type RedisClient,
} from "@svc/queue";
import {
  createAccountWithKeys,
  createTestDatabase,
  DEAD_REDIS_URL,
  deleteRedisPrefix,
  seedTestModels,
  serviceEnv,
  startHttpsReceiver,
  testCertificate,
  testQueuePrefix,
  TEST_REDIS_URL,
  waitFor,
  type HttpsReceiver,
  type TestDatabase,
  localOutputKeys,
} from "@svc/testkit";
import { wireRuns, type RunLifecycle } from "@svc/use-cases";
import { connectionsFirst, startWorker, type RunningWorker } from "./worker.js";
import { Components } from "./components.js";

// The worker's processors (runs, deliveries, deadlines, sweepers) in this process, wired by
// startWorker exactly as entry.ts wires them, against the real Postgres and Redis. Runs are made
// by the same use-case the API calls, over a producer of their own.
describe("the worker's processors, in-process", () => {
  let database: TestDatabase;
  let config: WorkerConfig;
  let db: Db;
  let redis: RedisClient;
  let worker: RunningWorker;
  let receiver: HttpsReceiver;
  /** The runs queue as a producer sees it, for jobs made by hand. */
  let runsQueue: ReturnType<typeof createRunsQueue>;
  let queueRedis: RedisClient;
  const prefix = testQueuePrefix();
  const lines: Record<string, unknown>[] = [];
  const made: { lifecycle: RunLifecycle; producer: Producer; redis: RedisClient }[] = [];

  /** The API's side: run creation over a producer on `redisUrl` (a dead one loses the enqueue). */
  async function creator(redisUrl = TEST_REDIS_URL) {
    const producerRedis = createRedis(redisUrl, "producer");
    if (redisUrl === TEST_REDIS_URL) await whenRedisReady(producerRedis, 2_000);
    const producer = createProducer(producerRedis, prefix);
    const { lifecycle } = wireRuns(config, {
      db,
      redis: producerRedis,
      logger: createLogger({ service: "api", level: "silent" }),
      queues: producer,
    });
    made.push({ lifecycle, producer, redis: producerRedis });
    return lifecycle;
  }

  async function createRun(lifecycle: RunLifecycle, extra: { webhookUrl?: string } = {}) {
    const { account, liveKeyId } = await createAccountWithKeys(database.db, 100);
    const result = await lifecycle.create({
      accountId: account.id,
      apiKeyId: liveKeyId,
      mode: "live",
      model: {
        id: "test/instant",
        status: "active",
        pricing: { unit: "image", tokens_per_unit: 5, units_from: "num_images" },
        runner: { kind: "builtin", generator: "image", delay_ms: 0 },
      },
      account: { weight: 1, maxConcurrentRuns: null },
      priority: "normal",
      input: { prompt: "in process", num_images: 1, image_size: "square_hd" },
      body: {},
      webhookUrl: extra.webhookUrl ?? null,
      webhookEventsFilter: null,
      cancelAfterMs: null,
      idempotencyKey: null,
    });
    if (result.kind !== "created") throw new Error(`not created: ${result.kind}`);
    return { runId: result.run.id, accountId: account.id };
  }

  const ended = (runId: string) =>
    waitFor(
      async () => {
        const run = await database.db.run.findUnique({ where: { id: runId } });
        return run && ["COMPLETED", "FAILED", "CANCELED"].includes(run.status) ? run : null;
      },
      { what: `run ${runId} to end` },
    );

  const finished = (jobId: string) =>
    waitFor(
      async () => {
        const job = await runsQueue.getJob(jobId);
        return job?.finishedOn ? job : null;
      },
      { what: `job ${jobId} to finish` },
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedTestModels(database.db);
    receiver = await startHttpsReceiver();
    const { caFile } = await testCertificate();
    config = loadWorkerConfig({
      ...serviceEnv(database.url, prefix),
      OUTPUT_DIR: await mkdtemp(join(tmpdir(), "svc-processors-")),
      PUBLIC_BASE_URL: "http://files.test",
      WEBHOOK_CA_FILE: caFile,
      WORKER_CONCURRENCY: "4",
      SWEEP_INTERVAL_MS: "100",
      SWEEP_QUEUED_AFTER_MS: "0",
      RUN_LOCK_MS: "1000",
    });
    const stream = new PassThrough();
    stream.on("data", (chunk: Buffer) =>
      chunk
        .toString()
        .split("\n")
        .filter(Boolean)
        .forEach((line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    );
    db = createDb({ url: config.DATABASE_URL, poolSize: 5 });
    redis = createRedis(config.REDIS_URL, "worker");
    const logger = createLogger({ service: "worker", level: "info", stream });
    const components = new Components(logger);
    connectionsFirst(components, { redis, db });
    worker = await startWorker({ config, db, redis, logger }, components);
    queueRedis = createRedis(TEST_REDIS_URL, "producer");
    runsQueue = createRunsQueue(queueRedis, prefix);
  });
  afterAll(async () => {
    for (const m of made) {
      await m.lifecycle.drain();
      await m.producer.close();
      m.redis.disconnect();
    }
    await runsQueue?.close();
    queueRedis?.disconnect();
    await worker?.close();
    await receiver?.close();
    await deleteRedisPrefix(prefix);
    await database?.drop();
  });

  it("when a run is created, then the run processor executes it: COMPLETED, charged once, its file stored", async () => {
    const { runId, accountId } = await createRun(await creator());
    const run = await ended(runId);
    expect(run).toMatchObject({ status: "COMPLETED", tokensCharged: 5 });
    const totals = await ledgerTotals(database.db, accountId);
    expect(totals.cached).toEqual({ balance: 95, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
    const [url] = (run.output as { images: string[] }).images;
    const [token, name] = url!.split("/").slice(-2);
    expect(await localOutputKeys(config.OUTPUT_DIR)).toEqual([`${token}/${name}`]);
  });

  it("when a run has a webhook_url, then the delivery processor posts run.completed to it, signed", async () => {
    const { runId } = await createRun(await creator(), { webhookUrl: receiver.url("/per-run") });
    const [delivered] = await receiver.waitForRequests(1);
    expect(JSON.parse(delivered!.body)).toMatchObject({ event: "run.completed", data: { run_id: runId } });
    expect(delivered!.headers["webhook-signature"]).toMatch(/^v1,/);
  });

  it("when a run's job was never enqueued (Redis away at creation), then the run sweeper enqueues it and it completes", async () => {
    const { runId } = await createRun(await creator(DEAD_REDIS_URL));
    expect((await ended(runId)).status).toBe("COMPLETED");
    expect(lines.some((l) => l.message === "sweep" && Number(l.enqueued) >= 1)).toBe(true);
  });

  it("when a second job names a run already handled, then the run is settled once, the duplicate skipped", async () => {
    const { runId, accountId } = await createRun(await creator());
    await ended(runId);
    const duplicate = await runsQueue.add("execute", { runId }, { jobId: `again-${runId}` });
    expect((await finished(duplicate.id!)).returnvalue).toBe("skipped");
    expect(await database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
    expect((await ledgerTotals(database.db, accountId)).cached).toEqual({ balance: 95, reserved: 0 });
  });

  it("when a job's payload is malformed, then it fails for good at once and the worker keeps serving", async () => {
    const bad = await runsQueue.add("execute", { runId: "../../etc/passwd" } as never, { attempts: 3 });
    const failed = await finished(bad.id!);
    expect(failed.failedReason).toMatch(/not a runs\/execute job/);
    expect(failed.attemptsMade).toBe(1);
    const { runId } = await createRun(await creator());
    expect((await ended(runId)).status).toBe("COMPLETED");
  });
});
