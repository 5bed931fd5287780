import { randomBytes } from "node:crypto";
import {
  deleteRedisPrefix,
  startRedisCluster,
  testQueuePrefix,
  TEST_REDIS_URL,
  type RedisClusterHandle,
} from "@svc/testkit";
import { Redis } from "ioredis";
import { createRedis, type RedisClient } from "./redis.js";
import { parseHandedOff, redisClockOffset, takeHandedOff } from "./handoff.js";
import { redisScheduler, type WaitingRun } from "./scheduler/index.js";
import { schedulerKeys } from "./scheduler/keys.js";
import { waitingRuns } from "./test/waitingRuns.js";

// The hand-off lists against a real Redis: what the API's enqueue leases goes to a worker without a
// job, stamped with the lease's time on Redis's clock; everything else is answered as before.
describe("hand-off of the API's leased runs (Redis)", () => {
  const prefix = testQueuePrefix();
  const redis = new Redis(TEST_REDIS_URL);
  const blocking = new Redis(TEST_REDIS_URL);
  const scheduler = redisScheduler(redis, prefix, { leaseMs: 60_000, defaultLimit: 100 });
  const keys = schedulerKeys(prefix);
  afterAll(async () => {
    await deleteRedisPrefix(prefix);
    redis.disconnect();
    blocking.disconnect();
  });
  const newRun = waitingRuns({ accountId: "acct_h", keyId: "key_h" });
  const run = (pool: string, extra: Partial<WaitingRun> = {}) => newRun({ pool, ...extra });
  const redisNow = async () => Date.now() + (await redisClockOffset(redis));

  it("when the API's enqueue leases runs of a kind executed where leased, then they are in their lane's list with the lease's time, not in the answer, and an untaken list is kept no longer than asked", async () => {
    await scheduler.setSlots("h/sync", ["http://gpu-a#0", "http://gpu-b#0", "http://gpu-c#0"]);
    const before = await redisNow();
    const normal = run("h/sync", { executesWhereLeased: true, input: '{"prompt":"a\\tb"}' });
    const item = run("h/sync", { executesWhereLeased: true, priority: "batch" });
    const answered = await scheduler.enqueue([normal, item], 5_000);
    const after = await redisNow();
    expect(answered).toEqual([]);
    const interactive = await redis.lrange(keys.handoff("interactive"), 0, -1);
    const batch = await redis.lrange(keys.handoff("batch"), 0, -1);
    expect(interactive).toHaveLength(1);
    expect(batch).toHaveLength(1);
    const taken = parseHandedOff(interactive[0]!, "interactive")!;
    expect(taken.dispatched).toEqual({
      runId: normal.runId,
      slot: expect.stringMatching(/^http:\/\/gpu-[abc]#0$/),
      pool: "h/sync",
      input: '{"prompt":"a\\tb"}',
    });
    expect(taken.leasedAt).toBeGreaterThanOrEqual(Math.floor(before) - 5);
    expect(taken.leasedAt).toBeLessThanOrEqual(Math.ceil(after) + 5);
    expect(parseHandedOff(batch[0]!, "batch")!.dispatched).toMatchObject({ runId: item.runId, batch: true });
    // Leased like any run: the sweeper finds the lease (and gives it a job if no worker takes it).
    expect((await scheduler.states([normal.runId])).get(normal.runId)).toMatchObject({
      slot: taken.dispatched.slot,
    });
    const ttl = await redis.pttl(keys.handoff("interactive"));
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
    await redis.del(keys.handoff("interactive"), keys.handoff("batch"));
  });

  it("when the runs are of a kind whose runs go through jobs, or the caller executes runs itself, then they are answered and nothing is handed off", async () => {
    await scheduler.setSlots("h/jobs", ["http://gpu-d#0", "http://gpu-e#0"]);
    const byJob = run("h/jobs");
    const byWorker = run("h/jobs", { executesWhereLeased: true });
    const answered = await scheduler.enqueue([byJob], 5_000);
    const ownAnswer = await scheduler.enqueue([byWorker]);
    expect([...answered, ...ownAnswer].map((d) => d.runId)).toEqual([byJob.runId, byWorker.runId]);
    expect(await redis.exists(keys.handoff("interactive"), keys.handoff("batch"))).toBe(0);
  });

  it("when a worker takes from both lanes, then interactive runs come first, each lane in its order, and an empty wait answers null", async () => {
    await scheduler.setSlots(
      "h/order",
      Array.from({ length: 4 }, (_, i) => `http://gpu-o${i}#0`),
    );
    const item = run("h/order", { executesWhereLeased: true, priority: "batch" });
    const first = run("h/order", { executesWhereLeased: true });
    const second = run("h/order", { executesWhereLeased: true, priority: "low" });
    await scheduler.enqueue([item], 5_000);
    await scheduler.enqueue([first, second], 5_000);
    const both = ["interactive", "batch"] as const;
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await takeHandedOff(blocking, prefix, both, 1))!.dispatched);
    expect(order.map((d) => [d.runId, d.batch ?? false])).toEqual([
      [first.runId, false],
      [second.runId, false],
      [item.runId, true],
    ]);
    expect(await takeHandedOff(blocking, prefix, both, 0.05)).toBeNull();
  });

  it("when a worker executes one lane, then it never takes the other's runs", async () => {
    await scheduler.setSlots("h/lanes", ["http://gpu-l0#0", "http://gpu-l1#0"]);
    const normal = run("h/lanes", { executesWhereLeased: true });
    const item = run("h/lanes", { executesWhereLeased: true, priority: "batch" });
    await scheduler.enqueue([normal, item], 5_000);
    expect((await takeHandedOff(blocking, prefix, ["batch"], 1))?.dispatched.runId).toBe(item.runId);
    expect(await takeHandedOff(blocking, prefix, ["batch"], 0.05)).toBeNull();
    expect(await redis.llen(keys.handoff("interactive"))).toBe(1);
    expect((await takeHandedOff(blocking, prefix, ["interactive"], 1))?.dispatched.runId).toBe(normal.runId);
  });

  it("when an entry is not one the script writes, then it is no run", () => {
    for (const value of ["", "abc", "12\trun_1\tslot", "x\trun_1\tslot\tpool\t", "12\t\tslot\tpool\t"])
      expect(parseHandedOff(value, "interactive")).toBeNull();
    expect(parseHandedOff("12\trun_1\tslot\tpool\t", "interactive")).toEqual({
      leasedAt: 12,
      dispatched: { runId: "run_1", slot: "slot", pool: "pool" },
    });
  });
});

// The lists live beside the scheduler's keys, under the prefix's hash tag: the enqueue script
// that pushes them and the worker's BLPOP over both lanes reach one node of a Cluster.
describe("hand-off on a Redis Cluster", () => {
  let cluster: RedisClusterHandle;
  const connections: RedisClient[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  });
  afterAll(async () => {
    for (const c of connections) c.disconnect();
    await cluster?.stop();
  });

  it("when the API's enqueue hands runs off and a worker takes both lanes, then the runs come through, interactive first", async () => {
    const prefix = `{h_${randomBytes(6).toString("hex")}}`;
    const connect = () => {
      const nodes = cluster.ports.map((port) => ({ host: "127.0.0.1", port }));
      const c = createRedis({ REDIS_URL: "", REDIS_CLUSTER_NODES: nodes }, "worker");
      connections.push(c);
      return c;
    };
    const scheduler = redisScheduler(connect(), prefix, { leaseMs: 60_000, defaultLimit: 100 });
    await scheduler.setSlots("c/sync", ["http://gpu-c0#0", "http://gpu-c1#0"]);
    const base = { accountId: "acct_c", createdAt: new Date(), weight: 1, maxConcurrentRuns: null };
    const key = { keyId: "key_c", keyMaxConcurrentRuns: null, pool: "c/sync", executesWhereLeased: true };
    await scheduler.enqueue([{ ...base, ...key, runId: "run_c_item", priority: "batch" }], 5_000);
    await scheduler.enqueue([{ ...base, ...key, runId: "run_c_normal", priority: "normal" }], 5_000);
    const blocking = connect();
    const taken = [];
    for (let i = 0; i < 2; i++)
      taken.push((await takeHandedOff(blocking, prefix, ["interactive", "batch"], 2))?.dispatched.runId);
    expect(taken).toEqual(["run_c_normal", "run_c_item"]);
  });
});
