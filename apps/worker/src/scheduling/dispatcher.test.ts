import { newId } from "@svc/core";
import { createLogger } from "@svc/logger";
import {
  createLeasedRunsQueue,
  createRedis,
  redisScheduler,
  type Dispatched,
  type LeasedRunsQueue,
  type RedisClient,
  type Scheduler,
} from "@svc/queue";
import { deleteRedisPrefix, testQueuePrefix, TEST_REDIS_URL } from "@svc/testkit";
import { PassThrough } from "node:stream";
import { workerDispatcher } from "./dispatcher.js";

// The worker's dispatcher against the real Redis scheduler: what it sends to Redis when a slot is
// given back, and where the runs it launches go.
describe("worker dispatcher", () => {
  let redis: RedisClient;
  let leased: LeasedRunsQueue;
  let scheduler: Scheduler;
  const prefix = testQueuePrefix();
  const logger = createLogger({ service: "worker", level: "error", stream: new PassThrough() });
  /** The scheduler's releases, as the dispatcher calls them. */
  const releases: string[][] = [];

  beforeAll(async () => {
    redis = createRedis(TEST_REDIS_URL, "worker");
    leased = createLeasedRunsQueue(redis, prefix);
    const real = redisScheduler(redis, prefix, { leaseMs: 60_000, defaultLimit: 100 });
    scheduler = {
      ...real,
      release: async (ids) => {
        releases.push([...ids]);
        return real.release(ids);
      },
    };
  });
  afterAll(async () => {
    await leased.close();
    await deleteRedisPrefix(prefix);
    await redis.quit();
  });

  /** A run of `pool` leased its one slot. */
  async function leasedRun(pool: string): Promise<Dispatched> {
    const runId = newId("run");
    await scheduler.setSlots(pool, [`http://gpu-${pool}:8000#0`]);
    const [dispatched] = await scheduler.enqueue([
      {
        runId,
        pool,
        accountId: "acct_d",
        createdAt: new Date(),
        priority: "normal",
        weight: 1,
        maxConcurrentRuns: null,
        keyId: "key_d",
        keyMaxConcurrentRuns: null,
      },
    ]);
    expect(dispatched).toMatchObject({ runId });
    return dispatched!;
  }

  it("when a run held here was given back by its runner, then its end gives nothing back again; a run still held gives its slot back", async () => {
    const dispatcher = workerDispatcher({ scheduler, leased, logger, leaseMs: 60_000 });
    try {
      const early = await leasedRun("d/early");
      dispatcher.hold(early.runId);
      await dispatcher.release(early.runId);
      await dispatcher.releaseHeld(early.runId);
      expect(releases.filter((ids) => ids.includes(early.runId))).toHaveLength(1);

      const late = await leasedRun("d/late");
      dispatcher.hold(late.runId);
      await dispatcher.releaseHeld(late.runId);
      expect(releases.filter((ids) => ids.includes(late.runId))).toHaveLength(1);
      expect((await scheduler.states([early.runId, late.runId])).get(late.runId)).toMatchObject({
        slot: null,
      });
    } finally {
      dispatcher.close();
    }
  });

  it("when runs leased at their admission here are launched, then those of a kind executed where leased start here and the others get jobs", async () => {
    const started: string[] = [];
    const dispatcher = workerDispatcher({
      scheduler,
      leased,
      logger,
      leaseMs: 60_000,
      here: {
        wants: async (d) => d.pool === "d/here",
        launch: (dispatched) => void started.push(...dispatched.map((d) => d.runId)),
      },
    });
    try {
      const here = await leasedRun("d/here");
      const elsewhere = await leasedRun("d/elsewhere");
      await dispatcher.launch([here, elsewhere]);
      expect(started).toEqual([here.runId]);
      expect(await leased.getJob(here.runId)).toBeUndefined();
      expect((await leased.getJob(elsewhere.runId))?.data).toMatchObject({ runId: elsewhere.runId });
    } finally {
      dispatcher.close();
    }
  });
});
