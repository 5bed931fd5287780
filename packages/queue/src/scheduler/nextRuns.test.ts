import { deleteRedisPrefix, testQueuePrefix, TEST_REDIS_URL, waitFor } from "@svc/testkit";
import { Redis } from "ioredis";
import { setTimeout as sleep } from "node:timers/promises";
import { queueIndex } from "../queueIndex.js";
import { waitingRuns } from "../test/waitingRuns.js";
import { INTERACTIVE_WAITING_CHANNEL, redisScheduler, type WaitingRun } from "./index.js";

// A slot's next run (issue #62), against a real Redis: leased to the worker that holds the slot's
// current run, handed the slot by that run's release (claimed: already sent; or answered as any
// run leased), back in line when its worker dies, and never where it could make others wait.
describe("scheduler: a slot's next run", () => {
  const connections: Redis[] = [];
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const p of prefixes) await deleteRedisPrefix(p);
    for (const c of connections) c.disconnect();
  });
  type Sched = ReturnType<typeof redisScheduler>;
  /** The connection and prefix of the last scheduler made. */
  let last: { redis: Redis; prefix: string };
  function make(leaseMs = 60_000): Sched {
    const prefix = testQueuePrefix();
    prefixes.push(prefix);
    const redis = new Redis(TEST_REDIS_URL);
    connections.push(redis);
    last = { redis, prefix };
    return redisScheduler(redis, prefix, { leaseMs, defaultLimit: 100, warmWaitMs: null });
  }
  const newRun = waitingRuns({ accountId: "acct_a", keyId: "key_a" });
  // Each run's own input: what a slot's next run is answered with is told from the others'.
  const run = (pool: string, extra: Partial<WaitingRun> = {}): WaitingRun => {
    const made = newRun({ pool, ...extra });
    return { input: JSON.stringify({ prompt: `p${made.runId}` }), ...made };
  };
  /**
   * The pool's slots, keeping next runs for mean holds up to `nextHeldMs`, after ten runs held
   * their slot `holdMs` each (a pool keeps next runs once it knows its runs are short).
   */
  async function history(s: Sched, pool: string, slots: string[], nextHeldMs = 250, holdMs = 0) {
    await s.setSlots(pool, slots, 0, nextHeldMs);
    for (let i = 0; i < 10; i++) {
      const [leased] = await s.enqueue([run(pool, { accountId: "acct_history" })]);
      if (holdMs) await sleep(holdMs);
      expect(await s.release([leased!.runId])).toEqual([]);
    }
  }
  const ids = (ds: { runId: string }[]) => ds.map((d) => d.runId);
  /**
   * A one-slot pool with a history of short runs and `count` runs waiting, the first leased and
   * then released by a worker that keeps next runs: the second holds the slot, the third is next.
   */
  async function handedOnce(pool: string, count = 3, leaseMs?: number) {
    const s = make(leaseMs);
    await history(s, pool, ["http://gpu#0"]);
    const runs = Array.from({ length: count }, () => run(pool));
    expect(ids(await s.enqueue(runs))).toEqual([runs[0]!.runId]);
    const handed = await s.handOver([runs[0]!.runId], { keepNext: true });
    expect(ids(handed.next)).toEqual([runs[2]!.runId]);
    return { s, runs, handed };
  }

  it("when a worker that executes its runs frees a slot of a short-run pool, then the slot keeps a next run, which takes it on the worker's claim without being answered again", async () => {
    const pool = "m/next";
    const {
      s,
      runs: [, r2, r3],
      handed: first,
    } = await handedOnce(pool);
    expect(first.dispatched).toEqual([{ runId: r2!.runId, slot: "http://gpu#0", pool, input: r2!.input }]);
    expect(first.next).toEqual([{ runId: r3!.runId, slot: "http://gpu#0", pool, input: r3!.input }]);
    // The next run still waits (it counts as queued, and no sweep mistakes it for a jobless lease).
    expect(await s.stats(pool)).toMatchObject({ leased: 1, queued: 1, nextRuns: 1 });
    expect((await s.states([r3!.runId])).get(r3!.runId)).toEqual({
      waiting: true,
      slot: null,
      leasedAt: null,
    });

    // Its worker sent it as r2 ended: the release gives it the slot and answers nothing more.
    const second = await s.handOver([r2!.runId], { keepNext: true, claimed: [r3!.runId] });
    expect(second).toEqual({
      dispatched: [],
      next: [],
      rejected: [],
      interactiveWaiting: new Map(),
    });
    expect((await s.states([r3!.runId])).get(r3!.runId)).toMatchObject({
      waiting: false,
      slot: "http://gpu#0",
    });
    expect(await s.stats(pool)).toMatchObject({ leased: 1, queued: 0, nextRuns: 0 });
    expect(await s.renew([r3!.runId])).toEqual([r3!.runId]);
    expect(await s.release([r3!.runId])).toEqual([]);
    expect(await s.stats(pool)).toMatchObject({ leased: 0, queued: 0 });
  });

  it("when a slot with a next run is freed by a release that does not claim it, then the next run is answered as a run leased the slot, with its input", async () => {
    const pool = "m/unclaimed";
    const {
      s,
      runs: [, r2, r3],
    } = await handedOnce(pool);
    // Another worker executed r2 (or this one stopped taking work): its plain release.
    expect(await s.release([r2!.runId])).toEqual([
      { runId: r3!.runId, slot: "http://gpu#0", pool, input: r3!.input },
    ]);
    // A claim of a run that is not (or no longer) a slot's next run is refused: its work is withdrawn.
    expect(await s.handOver([r3!.runId], { keepNext: true, claimed: [r2!.runId] })).toEqual({
      dispatched: [],
      next: [],
      rejected: [r2!.runId],
      interactiveWaiting: new Map(),
    });
  });

  it("when the worker holding a next run dies, then the run takes its slot on the lapse, or goes back in line at its place when its slot's run still holds the slot", async () => {
    const pool = "m/lapse";
    const {
      s,
      runs: [, r2, r3, r4],
    } = await handedOnce(pool, 4, 300);

    // Only r2 is renewed (its worker dropped r3): r3's lease lapses, and r3 waits again, first.
    const lapsed = await waitFor(
      async () => {
        await s.renew([r2!.runId]);
        await s.tick([]);
        return (await s.states([r3!.runId])).get(r3!.runId)?.waiting &&
          (await s.runsBefore(pool, r3!.runId)) === 0
          ? true
          : null;
      },
      { what: "the next run back in line", intervalMs: 50 },
    );
    expect(lapsed).toBe(true);
    expect(await s.stats(pool)).toMatchObject({ leased: 1, queued: 2 });
    // The slot's run ends: the next in line (r3, at its place) takes it.
    const again = await s.handOver([r2!.runId], { keepNext: true });
    expect(ids(again.dispatched)).toEqual([r3!.runId]);
    expect(ids(again.next)).toEqual([r4!.runId]);

    // Nobody renews either (the worker died): the slot's run lapses and its next run is answered
    // by the call that notices, as any run leased.
    const taken = await waitFor(
      async () => {
        const tick = await s.tick([]);
        return tick.dispatched.length ? tick.dispatched : null;
      },
      { what: "the lapsed slot given to its next run", intervalMs: 50 },
    );
    expect(ids(taken)).toEqual([r4!.runId]);
    expect(await s.stats(pool)).toMatchObject({ leased: 1, queued: 0 });
  });

  it("when a next run is canceled while it waits, then it still takes the slot (its start finds it canceled) and leaves nothing counted", async () => {
    const pool = "m/cancel";
    const {
      s,
      runs: [, r2, r3],
    } = await handedOnce(pool);
    expect(await s.remove([r3!.runId])).toBe(0);
    expect(await s.release([r2!.runId])).toEqual([{ runId: r3!.runId, slot: "http://gpu#0", pool }]);
    expect(await s.release([r3!.runId])).toEqual([]);
    expect(await s.stats(pool)).toMatchObject({ leased: 0, queued: 0 });
  });

  it("when a run moves to another server, then its old slot goes to its next run", async () => {
    const s = make();
    const pool = "m/moves";
    await history(s, pool, ["http://one#0", "http://two#0"]);
    const [r1, r2, r3, r4] = [run(pool), run(pool), run(pool), run(pool)];
    const first = await s.enqueue([r1!, r2!, r3!, r4!]);
    const onTwo = first.find((d) => d.slot === "http://two#0")!;
    const onOne = first.find((d) => d.slot === "http://one#0")!;
    const handed = await s.handOver([onTwo.runId], { keepNext: true });
    const moving = handed.dispatched[0]!;
    expect(handed.next.map((d) => d.slot)).toEqual(["http://two#0"]);
    expect(await s.release([onOne.runId])).toEqual([]);
    expect(await s.relocate(moving.runId, ["http://two"])).toEqual({
      slot: "http://one#0",
      dispatched: [{ ...handed.next[0]!, slot: "http://two#0" }],
    });
  });

  it("when slots hold next runs, then a run in line is told they start before it", async () => {
    const pool = "m/place";
    const {
      s,
      runs: [, , , r4],
    } = await handedOnce(pool, 4);
    const index = queueIndex(last.redis, last.prefix, s, async () => 0);
    expect(await index.place({ id: r4!.runId, modelId: pool, createdAt: r4!.createdAt }, true)).toMatchObject(
      {
        ahead: 1,
      },
    );
  });

  it("when runs are long, limited to one at a time, on a server another model shares, or the caller does not keep next runs, then no slot keeps one", async () => {
    const s = make();
    const lone = async (pool: string, extra: Partial<WaitingRun> = {}, keepNext = true) => {
      const [r1, r2, r3] = [run(pool, extra), run(pool, extra), run(pool, extra)];
      await s.enqueue([r1!, r2!, r3!]);
      return s.handOver([r1!.runId], { keepNext });
    };
    await history(s, "m/plain", ["http://p#0"]);
    expect((await lone("m/plain", {}, false)).next).toEqual([]);
    await history(s, "m/limit", ["http://l#0"]);
    expect((await lone("m/limit", { maxConcurrentRuns: 1, accountId: "acct_one" })).next).toEqual([]);
    // Runs held 20 ms each, next runs only up to 5 ms.
    await history(s, "m/long", ["http://long#0"], 5, 20);
    expect((await lone("m/long")).next).toEqual([]);
    // Two models on one server: its place goes to whichever's run is next when it frees.
    await history(s, "m/shared-a", ["http://shared#0"]);
    await s.setSlots("m/shared-b", ["http://shared#0"], 0, 250);
    expect((await lone("m/shared-a")).next).toEqual([]);
    // A pool that has no history yet keeps none either.
    await s.setSlots("m/new", ["http://new#0"], 0, 250);
    expect((await lone("m/new")).next).toEqual([]);
  });

  /** Batch items of `account` (issue #61): the lane below interactive work. */
  const items = (pool: string, count: number, account = "acct_batch") =>
    Array.from({ length: count }, () => run(pool, { accountId: account, priority: "batch" }));
  const batchRunning = async (pool: string) =>
    Number(await last.redis.hget(`${last.prefix}:sched:${pool}:meta`, "batchrunning"));

  it("when a batch item holds a slot and no interactive run waits, then the slot keeps a batch item next, which takes the place in the batches' share on its claim", async () => {
    const s = make();
    const pool = "m/batch-next";
    await history(s, pool, ["http://b#0"]);
    const [b1, b2, b3, b4] = items(pool, 4);
    expect(ids(await s.enqueue([b1!, b2!, b3!, b4!]))).toEqual([b1!.runId]);
    const first = await s.handOver([b1!.runId], { keepNext: true });
    expect(ids(first.dispatched)).toEqual([b2!.runId]);
    // A batch item leased a free place says so (its job goes to the batch lane's queue).
    expect(first.dispatched[0]!.batch).toBe(true);
    expect(first.next).toEqual([
      { runId: b3!.runId, slot: "http://b#0", pool, input: b3!.input, batch: true },
    ]);
    expect(first.interactiveWaiting).toEqual(new Map([[pool, false]]));
    expect(await batchRunning(pool)).toBe(1);
    // It waits (queued), but no interactive run that comes is told it starts first.
    expect(await s.stats(pool)).toMatchObject({ leased: 1, queued: 2, nextRuns: 0 });
    const second = await s.handOver([b2!.runId], { keepNext: true, claimed: [b3!.runId] });
    expect(second.rejected).toEqual([]);
    expect(ids(second.next)).toEqual([b4!.runId]);
    expect((await s.states([b3!.runId])).get(b3!.runId)).toMatchObject({
      waiting: false,
      slot: "http://b#0",
    });
    expect(await batchRunning(pool)).toBe(1);
    // Unclaimed (its worker stopped, or heard of interactive runs that are gone now): answered,
    // as a batch item.
    expect(await s.release([b3!.runId])).toEqual([
      { runId: b4!.runId, slot: "http://b#0", pool, input: b4!.input, batch: true },
    ]);
    expect(await s.release([b4!.runId])).toEqual([]);
    expect(await batchRunning(pool)).toBe(0);
    expect(await s.stats(pool)).toMatchObject({ leased: 0, queued: 0 });
  });

  /** A two-place pool of short runs whose places hold batch items b2 and b3, b4 and b5 their next runs. */
  async function twoBatchPlaces(pool: string) {
    const s = make();
    await history(s, pool, [`http://${pool}#0`, `http://${pool}#1`]);
    const b = items(pool, 6);
    const [a1, a2] = ids(await s.enqueue(b));
    const handed = await s.handOver([a1!, a2!], { keepNext: true });
    return { s, b, handed };
  }

  it("when an interactive run comes while batch items are slots' next runs, then it is no batch slot's next run, the release says it waits, and the first release not claiming its batch item gives it the place", async () => {
    const pool = "m/batch-yields";
    const { s, b, handed } = await twoBatchPlaces(pool);
    expect(ids(handed.dispatched).sort()).toEqual([b[2]!.runId, b[3]!.runId]);
    expect(ids(handed.next).sort()).toEqual([b[4]!.runId, b[5]!.runId]);
    const deckOf = new Map(handed.next.map((n) => [n.slot, n.runId]));
    const [x, y] = handed.dispatched;

    // The enqueue that leaves it waiting tells every worker (and one that gets a place does not).
    const heard: string[] = [];
    const listener = new Redis(TEST_REDIS_URL);
    connections.push(listener);
    await listener.subscribe(INTERACTIVE_WAITING_CHANNEL.name(last.prefix));
    listener.on("message", (_channel: string, message: string) => void heard.push(message));
    const interactive = run(pool, { accountId: "acct_people" });
    expect(await s.enqueue([interactive])).toEqual([]);
    await waitFor(async () => (heard.length ? true : null), { what: "the announcement" });
    expect(heard).toEqual([pool]);
    // x's worker had not heard yet and sent its batch item: accepted, and the interactive run is
    // not made the next run of that slot (it would wait a whole batch item there).
    const stale = await s.handOver([x!.runId], { keepNext: true, claimed: [deckOf.get(x!.slot)!] });
    expect(stale).toMatchObject({ dispatched: [], next: [], rejected: [] });
    expect(stale.interactiveWaiting).toEqual(new Map([[pool, true]]));
    // y's worker heard, and did not send its batch item: it goes back in line, the place to the run.
    const yielded = await s.handOver([y!.runId], { keepNext: true });
    expect(yielded.dispatched).toEqual([
      { runId: interactive.runId, slot: y!.slot, pool, input: interactive.input },
    ]);
    expect(yielded.next).toEqual([]);
    expect(yielded.interactiveWaiting).toEqual(new Map([[pool, false]]));
    const back = deckOf.get(y!.slot)!;
    expect((await s.states([back])).get(back)).toEqual({ waiting: true, slot: null, leasedAt: null });
    expect(await batchRunning(pool)).toBe(1);
    expect(await s.stats(pool)).toMatchObject({ leased: 2, queued: 1, nextRuns: 0 });
    // The batch item goes on when the interactive run ends.
    expect(ids(await s.release([interactive.runId]))).toEqual([back]);
    // An interactive run that gets a place, or waits where no batch item holds one, is not announced.
    expect(await s.release([back])).toEqual([]);
    expect(await s.enqueue([run(pool, { accountId: "acct_people" })])).toHaveLength(1);
    await s.setSlots("m/plain-busy", ["http://pb#0"], 0, 250);
    await s.enqueue([run("m/plain-busy"), run("m/plain-busy")]);
    await listener.ping();
    expect(heard).toEqual([pool]);
  });

  it("when interactive runs wait while batch items hold places, then none is a slot's next run: each takes the first place that frees", async () => {
    const pool = "m/batch-first-free";
    const { s, handed } = await twoBatchPlaces(pool);
    const [x, y] = handed.dispatched;
    const [i1, i2] = [run(pool, { accountId: "acct_people" }), run(pool, { accountId: "acct_people" })];
    expect(await s.enqueue([i1!, i2!])).toEqual([]);
    // x's place goes to the first; the second is not bound to it behind a whole run, while y's
    // batch item will free a place.
    const first = await s.handOver([x!.runId], { keepNext: true });
    expect(ids(first.dispatched)).toEqual([i1!.runId]);
    expect(first.next).toEqual([]);
    expect(first.interactiveWaiting).toEqual(new Map([[pool, true]]));
    const second = await s.handOver([y!.runId], { keepNext: true });
    expect(ids(second.dispatched)).toEqual([i2!.runId]);
  });

  it("when the batches hold more places than their share, then a batch item's slot keeps no batch item next", async () => {
    const s = make();
    const pool = "m/batch-share";
    await history(s, pool, ["http://s#0", "http://s#1"]);
    const b = items(pool, 8);
    const handed = await s.handOver(ids(await s.enqueue(b)), { keepNext: true });
    expect(handed.next).toHaveLength(2);
    // An operator lowers the share to one place of two while two items hold places: the items
    // their workers sent take their places, and keep no batch item after them.
    await s.setBatchShare(pool, 0.5);
    for (const n of handed.next) {
      const onSlot = handed.dispatched.find((d) => d.slot === n.slot)!;
      const claimed = await s.handOver([onSlot.runId], { keepNext: true, claimed: [n.runId] });
      expect(claimed).toMatchObject({ dispatched: [], next: [], rejected: [] });
    }
    expect(await batchRunning(pool)).toBe(2);
  });
});
