import { newId } from "@svc/core";
import { createLogger } from "@svc/logger";
import {
  createLeasedRunsQueue,
  createRedis,
  redisScheduler,
  type Dispatched,
  type ByLane,
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
  let leased: ByLane<LeasedRunsQueue>;
  let scheduler: Scheduler;
  const prefix = testQueuePrefix();
  const logger = createLogger({ service: "worker", level: "error", stream: new PassThrough() });
  /** The scheduler's releases, as the dispatcher calls them. */
  const releases: string[][] = [];

  beforeAll(async () => {
    redis = createRedis(TEST_REDIS_URL, "worker");
    leased = {
      interactive: createLeasedRunsQueue(redis, prefix),
      batch: createLeasedRunsQueue(redis, prefix, "batch"),
    };
    const real = redisScheduler(redis, prefix, { leaseMs: 60_000, defaultLimit: 100 });
    scheduler = {
      ...real,
      handOver: async (ids, opts) => {
        releases.push([...ids]);
        return real.handOver(ids, opts);
      },
    };
  });
  afterAll(async () => {
    await Promise.all([leased.interactive.close(), leased.batch.close()]);
    await deleteRedisPrefix(prefix);
    await redis.quit();
  });

  /** A run of `pool` leased its one slot. */
  async function leasedRun(pool: string, priority: "normal" | "batch" = "normal"): Promise<Dispatched> {
    const runId = newId("run");
    await scheduler.setSlots(pool, [`http://gpu-${pool}:8000#0`]);
    const [dispatched] = await scheduler.enqueue([
      {
        runId,
        pool,
        accountId: "acct_d",
        createdAt: new Date(),
        priority,
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

  /** A dispatcher that starts here the runs `wants` picks (their ids in `started`). */
  function startingHere(wants: (d: Dispatched) => Promise<boolean>) {
    const started: string[] = [];
    const dispatcher = workerDispatcher({
      scheduler,
      leased,
      logger,
      leaseMs: 60_000,
      here: {
        wants,
        launch: (dispatched) => void started.push(...dispatched.map((d) => d.runId)),
        accepting: () => true,
      },
    });
    return { started, dispatcher };
  }

  it("when a batch item and an interactive run are leased, then the scheduler marks the batch item, and a run this worker does not take goes to its lane's queue", async () => {
    // An interactive worker's choice (assembly.ts): never a batch item.
    const { started, dispatcher } = startingHere(async (d) => !d.batch);
    try {
      const item = await leasedRun("d/batch", "batch");
      const run = await leasedRun("d/interactive");
      expect(item.batch).toBe(true);
      expect(run.batch).toBeUndefined();
      await dispatcher.launch([item, run]);
      expect(started).toEqual([run.runId]);
      expect(await leased.interactive.getJob(item.runId)).toBeUndefined();
      expect((await leased.batch.getJob(item.runId))?.data).toMatchObject({
        runId: item.runId,
        pool: "d/batch",
      });
      expect(await leased.batch.getJob(run.runId)).toBeUndefined();
    } finally {
      dispatcher.close();
    }
  });

  it("when runs leased at their admission here are launched, then those of a kind executed where leased start here and the others get jobs", async () => {
    const { started, dispatcher } = startingHere(async (d) => d.pool === "d/here");
    try {
      const here = await leasedRun("d/here");
      const elsewhere = await leasedRun("d/elsewhere");
      await dispatcher.launch([here, elsewhere]);
      expect(started).toEqual([here.runId]);
      expect(await leased.interactive.getJob(here.runId)).toBeUndefined();
      expect((await leased.interactive.getJob(elsewhere.runId))?.data).toMatchObject({
        runId: elsewhere.runId,
      });
    } finally {
      dispatcher.close();
    }
  });

  /** A pool of one slot whose runs are known to be short (ten ended at once), and three runs waiting. */
  async function shortPool(pool: string) {
    const slot = `http://gpu-${pool}:8000#0`;
    await scheduler.setSlots(pool, [slot], 0, 250);
    let at = Date.now();
    const waiting = (account: string) => ({
      runId: newId("run"),
      pool,
      accountId: account,
      createdAt: new Date(++at),
      priority: "normal" as const,
      weight: 1,
      maxConcurrentRuns: null,
      keyId: "key_d",
      keyMaxConcurrentRuns: null,
      input: JSON.stringify({ prompt: "hi" }),
    });
    for (let i = 0; i < 10; i++) {
      const [leased] = await scheduler.enqueue([waiting("acct_history")]);
      await scheduler.release([leased!.runId]);
    }
    const runs = [waiting("acct_d"), waiting("acct_d"), waiting("acct_d")];
    const [first] = await scheduler.enqueue(runs);
    return { first: first!, ids: runs.map((r) => r.runId) };
  }

  /** A dispatcher that executes every run here, recording what it sends and starts, in order. */
  function executingHere(extra: { stallMs?: number; withdrawn?: string[]; patientWindowMs?: number } = {}) {
    const events: string[] = [];
    const started: string[] = [];
    const dispatcher = workerDispatcher({
      scheduler: {
        ...scheduler,
        handOver: async (ids, opts) => {
          events.push(`release ${ids.join(",")} claiming ${(opts?.claimed ?? []).join(",")}`);
          return scheduler.handOver(ids, opts);
        },
      },
      leased,
      logger,
      leaseMs: 60_000,
      stallMs: extra.stallMs,
      patientWindowMs: extra.patientWindowMs,
      begin: async (d) => {
        events.push(`begin ${d.runId}`);
        return true;
      },
      here: {
        wants: async () => true,
        launch: (dispatched) => void started.push(...dispatched.map((d) => d.runId)),
        accepting: () => true,
      },
      withdraw: async (d) => void extra.withdrawn?.push(d.runId),
    });
    return { dispatcher, events, started };
  }

  it("when a run executing here ends, then its slot's next run is sent before the release leaves for Redis, claimed by it, and starts here", async () => {
    const { first, ids } = await shortPool("d/next");
    const { dispatcher, events, started } = executingHere();
    try {
      await dispatcher.launch([first]);
      await dispatcher.release(ids[0]!);
      // The release gave this worker the slot's run and the run after it.
      expect(started).toEqual([ids[0], ids[1]]);
      events.length = 0;
      await dispatcher.release(ids[1]!);
      expect(events).toEqual([`begin ${ids[2]}`, `release ${ids[1]} claiming ${ids[2]}`]);
      expect(started).toEqual(ids);
      expect((await scheduler.states([ids[2]!])).get(ids[2]!)).toMatchObject({ waiting: false });
      await dispatcher.release(ids[2]!);
    } finally {
      dispatcher.close();
    }
  });

  it("when the event loop was blocked past the stall limit, then the next run is not sent from here first: the release answers it as any run leased", async () => {
    const { first, ids } = await shortPool("d/stall");
    const { dispatcher, events, started } = executingHere({ stallMs: 100 });
    try {
      await dispatcher.launch([first]);
      await dispatcher.release(ids[0]!);
      const until = Date.now() + 300;
      while (Date.now() < until); // a stall (another worker could have taken its run over)
      events.length = 0;
      await dispatcher.release(ids[1]!);
      expect(events).toEqual([`release ${ids[1]} claiming `, `begin ${ids[2]}`]);
      expect(started).toEqual(ids);
      await dispatcher.release(ids[2]!);
    } finally {
      dispatcher.close();
    }
  });

  it("when another process freed the slot first, then the claim is refused and the work sent for the next run is withdrawn, not started", async () => {
    const { first, ids } = await shortPool("d/refused");
    const withdrawn: string[] = [];
    const { dispatcher, started } = executingHere({ withdrawn });
    try {
      await dispatcher.launch([first]);
      await dispatcher.release(ids[0]!);
      // The sweeper (or a worker that took the run over) gives the slot back: the next run is
      // answered to it, as any run leased.
      expect((await scheduler.release([ids[1]!])).map((d) => d.runId)).toEqual([ids[2]]);
      await dispatcher.release(ids[1]!);
      expect(withdrawn).toEqual([ids[2]]);
      expect(started).toEqual([ids[0], ids[1]]);
      await scheduler.release([ids[2]!]);
    } finally {
      dispatcher.close();
    }
  });

  /**
   * A two-slot pool of short runs whose places hold batch items b2 and b4, with b3 and b5 their
   * slots' next runs, executed by a dispatcher here; and a run of another account waiting (unless
   * `alone`).
   */
  async function batchPlaces(
    pool: string,
    options: { alone?: boolean; patientWindowMs?: number; items?: number } = {},
  ) {
    const slots = [`http://gpu-${pool}:8000#0`, `http://gpu-${pool}:8000#1`];
    await scheduler.setSlots(pool, slots, 0, 250);
    let at = Date.now();
    const waiting = (account: string, priority: "normal" | "batch") => ({
      runId: newId("run"),
      pool,
      accountId: account,
      createdAt: new Date(++at),
      priority,
      weight: 1,
      maxConcurrentRuns: null,
      keyId: "key_d",
      keyMaxConcurrentRuns: null,
    });
    for (let i = 0; i < 10; i++) {
      const [leased] = await scheduler.enqueue([waiting("acct_history", "normal")]);
      await scheduler.release([leased!.runId]);
    }
    const items = Array.from({ length: options.items ?? 6 }, () => waiting("acct_batch", "batch"));
    const here = executingHere({ patientWindowMs: options.patientWindowMs });
    await here.dispatcher.launch(await scheduler.enqueue(items));
    const b = items.map((r) => r.runId);
    await here.dispatcher.release(b[0]!);
    await here.dispatcher.release(b[1]!);
    expect(here.started).toEqual([b[0], b[1], b[2], b[4]]);
    const person = waiting("acct_person", "normal");
    if (!options.alone) expect(await scheduler.enqueue([person])).toEqual([]);
    here.events.length = 0;
    return { ...here, b, person };
  }

  it("when an interactive run waits and this worker has not heard yet, then one batch item that is a slot's next run is sent first; the release says it waits, and the next place goes to it", async () => {
    const { dispatcher, events, started, b, person } = await batchPlaces("d/batch-stale");
    try {
      await dispatcher.release(b[2]!);
      expect(events).toEqual([`begin ${b[3]}`, `release ${b[2]} claiming ${b[3]}`]);
      events.length = 0;
      // Heard: b5 is not sent, and the place goes to the interactive run.
      await dispatcher.release(b[4]!);
      expect(events).toEqual([`release ${b[4]} claiming `, `begin ${person.runId}`]);
      expect(started).toEqual([b[0], b[1], b[2], b[4], b[3], person.runId]);
      expect((await scheduler.states([b[5]!])).get(b[5]!)).toMatchObject({ waiting: true, slot: null });
      await dispatcher.release(person.runId);
      expect(started).toContain(b[5]);
      await dispatcher.release(b[3]!);
      await dispatcher.release(b[5]!);
    } finally {
      dispatcher.close();
    }
  });

  it("when told an interactive run waits (the enqueue's announcement), then no batch item is sent first: the first place that frees goes to the interactive run", async () => {
    const { dispatcher, events, started, b, person } = await batchPlaces("d/batch-told");
    try {
      dispatcher.interactiveWaits("d/batch-told");
      await dispatcher.release(b[2]!);
      expect(events).toEqual([`release ${b[2]} claiming `, `begin ${person.runId}`]);
      expect(started).toEqual([b[0], b[1], b[2], b[4], person.runId]);
      expect((await scheduler.states([b[3]!])).get(b[3]!)).toMatchObject({ waiting: true, slot: null });
      // Nobody waits any more (the release said so): b5 is sent first again.
      events.length = 0;
      await dispatcher.release(b[4]!);
      expect(events).toEqual([`begin ${b[5]}`, `release ${b[4]} claiming ${b[5]}`]);
      for (const id of [person.runId, b[5]!]) await dispatcher.release(id);
      await dispatcher.release(b[3]!);
    } finally {
      dispatcher.close();
    }
  });

  it("when batch items whose slots' next items were sent first end together, then their releases wait for each other and go to Redis in one call", async () => {
    const { dispatcher, events, started, b } = await batchPlaces("d/batch-patient", {
      alone: true,
      patientWindowMs: 200,
    });
    try {
      await Promise.all([dispatcher.release(b[2]!), dispatcher.release(b[4]!)]);
      expect(events).toEqual([
        `begin ${b[3]}`,
        `begin ${b[5]}`,
        `release ${b[2]},${b[4]} claiming ${b[3]},${b[5]}`,
      ]);
      expect(started).toEqual([b[0], b[1], b[2], b[4], b[3], b[5]]);
      for (const id of [b[3]!, b[5]!]) await dispatcher.release(id);
    } finally {
      dispatcher.close();
    }
  });

  it("when a batch item's release claims nothing, then it goes at once, whatever the patient window", async () => {
    const { dispatcher, events, b, person } = await batchPlaces("d/batch-prompt", {
      patientWindowMs: 60_000,
    });
    try {
      dispatcher.interactiveWaits("d/batch-prompt");
      await dispatcher.release(b[2]!);
      expect(events).toEqual([`release ${b[2]} claiming `, `begin ${person.runId}`]);
    } finally {
      dispatcher.close();
    }
  });

  it("when a claimed next run's prediction answers before the release that claimed it went, then both go in one call, and its execution neither holds the slot again nor claims the run leased after it", async () => {
    const { dispatcher, events, started, b } = await batchPlaces("d/batch-early", {
      alone: true,
      patientWindowMs: 60_000,
      items: 8,
    });
    try {
      // b2's prediction ends: b3 (its slot's next run) is sent, and the release waits for company;
      // b3's own prediction answers meanwhile and frees the slot: the two go together, in order.
      const first = dispatcher.release(b[2]!);
      await dispatcher.releaseHeld(b[3]!);
      await first;
      // The slot went to b6 (sent now), with b7 as its next run; b3's execution starts here and ends.
      expect(events).toEqual([`begin ${b[3]}`, `release ${b[2]},${b[3]} claiming ${b[3]}`, `begin ${b[6]}`]);
      expect(started).toEqual([b[0], b[1], b[2], b[4], b[6], b[3]]);
      events.length = 0;
      dispatcher.hold(b[3]!);
      expect(dispatcher.holds(b[3]!)).toBe(false);
      await dispatcher.releaseHeld(b[3]!);
      expect(events).toEqual([]);
      // b6's end claims b7, as the release gave it.
      const b6 = dispatcher.release(b[6]!);
      await dispatcher.releaseHeld(b[7]!);
      await b6;
      expect(events).toEqual([`begin ${b[7]}`, `release ${b[6]},${b[7]} claiming ${b[7]}`]);
    } finally {
      dispatcher.close();
    }
  });
});
