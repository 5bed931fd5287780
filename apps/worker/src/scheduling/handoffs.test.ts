import { newId } from "@svc/core";
import { createLogger } from "@svc/logger";
import {
  createLeasedRunsQueue,
  createRedis,
  duplicateAs,
  launchRuns,
  redisClockOffset,
  redisScheduler,
  handOffList,
  type ByLane,
  type Dispatched,
  type LeasedRunsQueue,
  type RedisClient,
  type WaitingRun,
} from "@svc/queue";
import { deleteRedisPrefix, testQueuePrefix, TEST_REDIS_URL, waitFor } from "@svc/testkit";
import { PassThrough } from "node:stream";
import { HANDOFF_EXECUTE_WITHIN_MS, takeHandOffs } from "./handoffs.js";

// The worker's taker of the runs the API leased, against the real Redis: a fresh one is launched
// here as a run leased here, a late one gets its job (the sweeper's, had it waited longer), and a
// stopped taker takes nothing more.
describe("the worker's taker of handed-off runs", () => {
  const prefix = testQueuePrefix();
  const logger = createLogger({ service: "worker", level: "error", stream: new PassThrough() });
  let redis: RedisClient;
  let leased: ByLane<LeasedRunsQueue>;
  let scheduler: ReturnType<typeof redisScheduler>;
  const launched: Dispatched[] = [];
  let taker: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    redis = createRedis(TEST_REDIS_URL, "worker");
    leased = {
      interactive: createLeasedRunsQueue(redis, prefix),
      batch: createLeasedRunsQueue(redis, prefix, "batch"),
    };
    scheduler = redisScheduler(redis, prefix, { leaseMs: 60_000, defaultLimit: 100 });
    await scheduler.setSlots("t/sync", ["http://gpu-1#0", "http://gpu-2#0", "http://gpu-3#0"]);
    taker = takeHandOffs({
      connection: duplicateAs(redis, "worker"),
      clock: redis,
      prefix,
      lanes: ["interactive", "batch"],
      launch: async (dispatched) => void launched.push(...dispatched),
      jobs: (dispatched) => launchRuns(leased, dispatched),
      logger,
    });
  });
  afterAll(async () => {
    await taker?.stop();
    await Promise.all([leased.interactive.close(), leased.batch.close()]);
    await deleteRedisPrefix(prefix);
    await redis.quit();
  });

  const run = (extra: Partial<WaitingRun> = {}): WaitingRun => ({
    runId: newId("run"),
    pool: "t/sync",
    accountId: "acct_t",
    createdAt: new Date(),
    priority: "normal",
    weight: 1,
    maxConcurrentRuns: null,
    keyId: "key_t",
    keyMaxConcurrentRuns: null,
    executesWhereLeased: true,
    ...extra,
  });

  it("when the API leases a run, then the taker launches it here at once, with when it was leased on this process's clock, and it gets no job", async () => {
    const before = Date.now();
    const fresh = run({ input: '{"prompt":"hi"}' });
    expect(await scheduler.enqueue([fresh], 5_000)).toEqual([]);
    await waitFor(async () => launched.some((d) => d.runId === fresh.runId), { what: "the launch" });
    const d = launched.find((l) => l.runId === fresh.runId)!;
    expect(d).toMatchObject({ pool: "t/sync", input: '{"prompt":"hi"}', slot: expect.stringMatching(/#0$/) });
    expect(d.leasedAt).toBeGreaterThanOrEqual(before - 20);
    expect(d.leasedAt).toBeLessThanOrEqual(Date.now() + 20);
    expect(await leased.interactive.getJob(fresh.runId)).toBeUndefined();
  });

  it("when a run waited in the list past half the grace of a jobless lease, then it gets its job instead of executing here", async () => {
    const late = run({ priority: "batch" });
    const leasedAt =
      Math.round(Date.now() + (await redisClockOffset(redis))) - HANDOFF_EXECUTE_WITHIN_MS - 200;
    // As the enqueue script writes it, leased that long ago (a taker stalled, or none running).
    await redis.rpush(handOffList(prefix, "batch"), `${leasedAt}\t${late.runId}\thttp://gpu-9#0\tt/sync\t`);
    await waitFor(async () => (await leased.batch.getJob(late.runId)) !== undefined, { what: "its job" });
    expect((await leased.batch.getJob(late.runId))!.data).toMatchObject({
      runId: late.runId,
      slot: "http://gpu-9#0",
      pool: "t/sync",
    });
    expect(launched.some((d) => d.runId === late.runId)).toBe(false);
  });

  it("when the taker is stopped, then it returns within its wait and takes nothing more", async () => {
    const stopping = Date.now();
    await taker!.stop();
    taker = undefined;
    expect(Date.now() - stopping).toBeLessThan(2_500);
    const left = run();
    await scheduler.enqueue([left], 5_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(await redis.llen(handOffList(prefix, "interactive"))).toBe(1);
    expect(launched.some((d) => d.runId === left.runId)).toBe(false);
  });
});
