import { runsBefore } from "@svc/core";
import { deleteRedisPrefix, testQueuePrefix, TEST_REDIS_URL, waitFor } from "@svc/testkit";
import { Redis } from "ioredis";
import { waitingRuns } from "../test/waitingRuns.js";
import { PLACE_RING_INLINE, redisScheduler, type Dispatched, type WaitingRun } from "./index.js";
import { stridePolicy } from "./stride/stride.js";

// The scheduler's Lua against a real Redis: order, limits and leases are what core's policy says.
describe("scheduler (Redis)", () => {
  const connections: Redis[] = [];
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const p of prefixes) await deleteRedisPrefix(p);
    for (const c of connections) c.disconnect();
  });
  function make(
    settings: { leaseMs?: number; defaultLimit?: number; warmWaitMs?: number | null } = {},
    connectionsCount = 1,
  ) {
    const prefix = testQueuePrefix();
    prefixes.push(prefix);
    const made = Array.from({ length: connectionsCount }, () => {
      const redis = new Redis(TEST_REDIS_URL);
      connections.push(redis);
      return redisScheduler(redis, prefix, {
        leaseMs: settings.leaseMs ?? 60_000,
        defaultLimit: settings.defaultLimit ?? 100,
        warmWaitMs: settings.warmWaitMs ?? null,
      });
    });
    return made;
  }
  const newRun = waitingRuns({ accountId: "acct_default", keyId: "key_default" });
  const run = (accountId: string, extra: Partial<WaitingRun> = {}) => newRun({ accountId, ...extra });
  const accountOf = new Map<string, string>();
  const enqueue = async (s: ReturnType<typeof redisScheduler>, runs: WaitingRun[]) => {
    for (const r of runs) accountOf.set(r.runId, r.accountId);
    return s.enqueue(runs);
  };
  /** Finishes the running run and returns the next one dispatched, one slot at a time. */
  async function drainOneSlot(s: ReturnType<typeof redisScheduler>, first: Dispatched[]) {
    const order: string[] = [];
    let current = first;
    while (current.length) {
      order.push(current[0]!.runId);
      current = await s.release([current[0]!.runId]);
    }
    return order;
  }

  it("when three accounts burst onto one slot, then they take turns, each oldest first, and every place was told right", async () => {
    const [s] = make();
    await enqueue(
      s!,
      Array.from({ length: 6 }, () => run("acct_a")),
    );
    await enqueue(
      s!,
      Array.from({ length: 6 }, () => run("acct_b")),
    );
    await enqueue(
      s!,
      Array.from({ length: 3 }, () => run("acct_c", { weight: 2 })),
    );
    const waiting = [...accountOf.keys()].slice(-15);
    // Places before any slot exists: what the API would tell each run's owner.
    const told = new Map<string, number>();
    for (const id of waiting) {
      told.set(id, (await s!.runsBefore("m/slow", id))!);
    }
    const order = await drainOneSlot(s!, await s!.setSlots("m/slow", ["http://gpu#0"]));
    expect(order).toHaveLength(15);
    expect(order.slice(0, 6).map((id) => accountOf.get(id))).toEqual(
      expect.arrayContaining(["acct_a", "acct_b", "acct_c"]),
    );
    // acct_c (weight 2) gets two turns for the others' one while it waits.
    expect(order.slice(0, 8).filter((id) => accountOf.get(id) === "acct_c")).toHaveLength(3);
    for (const account of ["acct_a", "acct_b", "acct_c"]) {
      const own = order.filter((id) => accountOf.get(id) === account);
      expect(own).toEqual([...own].sort());
    }
    for (const [i, id] of order.entries()) expect(told.get(id)).toBe(i);
    expect(await s!.stats("m/slow")).toMatchObject({ capacity: 1, leased: 0, queued: 0 });
  });

  it("when four processes enqueue at once for an account limited to 3, then exactly 3 hold slots, whatever the free slots", async () => {
    const schedulers = make({ defaultLimit: 3 }, 4);
    const runs = Array.from({ length: 40 }, () => run("acct_limited", { pool: "m/wide" }));
    await schedulers[0]!.setSlots(
      "m/wide",
      Array.from({ length: 8 }, (_, i) => `http://gpu#${i}`),
    );
    const dispatched = (
      await Promise.all(schedulers.map((s, i) => s.enqueue(runs.filter((_, j) => j % 4 === i))))
    ).flat();
    expect(dispatched).toHaveLength(3);
    expect(await schedulers[0]!.stats("m/wide")).toMatchObject({ capacity: 8, leased: 3, queued: 37 });
    // One ends: exactly one more starts; another account is not held back by this one's limit.
    const next = await schedulers[1]!.release([dispatched[0]!.runId]);
    expect(next).toHaveLength(1);
    expect(
      (await schedulers[2]!.enqueue([run("acct_other", { pool: "m/wide" })])).map((d) => d.pool),
    ).toEqual(["m/wide"]);
  });

  it("when a key limited to 1 bursts beside another key of its account, then the other key's runs take the free slots and the limited key's wait their turn", async () => {
    const [s] = make();
    const limited = { pool: "m/keys", keyId: "key_limited", keyMaxConcurrentRuns: 1 };
    const a = Array.from({ length: 3 }, () => run("acct_keys", limited));
    const b = Array.from({ length: 2 }, () => run("acct_keys", { pool: "m/keys", keyId: "key_free" }));
    await enqueue(s!, [...a, ...b]);
    const first = await s!.setSlots("m/keys", [
      "http://gpu#0",
      "http://gpu#1",
      "http://gpu#2",
      "http://gpu#3",
    ]);
    expect(first.map((d) => d.runId)).toEqual([a[0]!, b[0]!, b[1]!].map((r) => r.runId));
    // Waiting aside, they are still queued, have a place, and can be canceled.
    expect(await s!.stats("m/keys")).toMatchObject({ leased: 3, queued: 2 });
    expect(await s!.runsBefore("m/keys", a[2]!.runId)).toBe(1);
    expect(await s!.remove([a[2]!.runId])).toBe(1);
    expect((await s!.states([a[2]!.runId])).get(a[2]!.runId)).toEqual({
      waiting: false,
      slot: null,
      leasedAt: null,
    });
    // The limited key's run ends: its next run starts in the slot it freed.
    expect((await s!.release([a[0]!.runId])).map((d) => d.runId)).toEqual([a[1]!.runId]);
    expect(await s!.release([b[0]!.runId])).toEqual([]);
    expect(await s!.stats("m/keys")).toMatchObject({ leased: 2, queued: 0 });
  });

  it("when an owner raises a key's limit, then its waiting runs start at the next refresh", async () => {
    const [s] = make();
    const runs = Array.from({ length: 3 }, () =>
      run("acct_raise", { pool: "m/raise", keyId: "key_raise", keyMaxConcurrentRuns: 1 }),
    );
    await enqueue(s!, runs);
    expect(await s!.setSlots("m/raise", ["http://gpu#0", "http://gpu#1", "http://gpu#2"])).toHaveLength(1);
    const refreshed = await s!.refreshAccounts([
      {
        accountId: "acct_raise",
        weight: 1,
        maxConcurrentRuns: null,
        pools: ["m/raise"],
        keys: [{ keyId: "key_raise", maxConcurrentRuns: 3 }],
      },
    ]);
    expect(refreshed.map((d) => d.runId).sort()).toEqual([runs[1]!.runId, runs[2]!.runId]);
  });

  it("when an account has low runs waiting and then normal ones, then the normal ones start first", async () => {
    const [s] = make();
    const low = Array.from({ length: 3 }, () => run("acct_lanes", { pool: "m/lanes", priority: "low" }));
    const normal = Array.from({ length: 2 }, () => run("acct_lanes", { pool: "m/lanes" }));
    await enqueue(s!, [...low, ...normal]);
    expect(await s!.runsBefore("m/lanes", low[0]!.runId)).toBe(2);
    const order = await drainOneSlot(s!, await s!.setSlots("m/lanes", ["http://gpu#0"]));
    expect(order).toEqual([...normal, ...low].map((r) => r.runId));
  });

  it("when a lease is not renewed, then its slot comes back at its expiry; a renewed one is kept; a removed run never starts", async () => {
    const [s] = make({ leaseMs: 300 });
    const [a, b, c] = [
      run("acct_x", { pool: "m/lease" }),
      run("acct_x", { pool: "m/lease" }),
      run("acct_x", { pool: "m/lease" }),
    ];
    await enqueue(s!, [a!, b!, c!]);
    expect(await s!.remove([b!.runId])).toBe(1);
    const [first] = await s!.setSlots("m/lease", ["http://gpu#0"]);
    expect(first!.runId).toBe(a!.runId);
    expect(await s!.renew([a!.runId])).toEqual([a!.runId]);
    expect((await s!.tick([])).dispatched).toEqual([]);
    // The next tick after the lease's expiry gives the slot to the next run.
    const dispatched = await waitFor(
      async () => {
        const tick = await s!.tick([]);
        return tick.dispatched.length ? tick.dispatched : null;
      },
      { what: "the lapsed lease's slot given to the next run", intervalMs: 25 },
    );
    expect(dispatched.map((d) => d.runId)).toEqual([c!.runId]);
    expect(await s!.renew([a!.runId])).toEqual([]);
    // A lapsed lease says nothing about how long runs hold a slot.
    expect((await s!.stats("m/lease")).held).toEqual([]);
    expect((await s!.states([a!.runId, b!.runId, c!.runId])).get(c!.runId)).toEqual({
      waiting: false,
      slot: "http://gpu#0",
      leasedAt: expect.any(Number),
    });
  });

  it("when a run's server dies, then it moves to a free slot on another server, or waits when none is free", async () => {
    const [s] = make();
    const [a, b] = [run("acct_y", { pool: "m/move" }), run("acct_y", { pool: "m/move" })];
    await enqueue(s!, [a!, b!]);
    const leased = await s!.setSlots("m/move", ["http://one#0", "http://two#0"]);
    expect(leased).toHaveLength(2);
    const onOne = leased.find((d) => d.slot === "http://one#0")!;
    expect(await s!.relocate(onOne.runId, ["http://one"])).toBeNull();
    const onTwo = leased.find((d) => d.slot === "http://two#0")!;
    await s!.release([onTwo.runId]);
    expect(await s!.relocate(onOne.runId, ["http://one"])).toEqual({ slot: "http://two#0", dispatched: [] });
    expect(await s!.stats("m/move")).toMatchObject({ leased: 1 });
  });

  it("when two models name one server, then its place is the server's: one run at a time across both, the freed place going to either", async () => {
    const [s] = make();
    const a = [run("acct_wf", { pool: "m/workflow-a" }), run("acct_wf", { pool: "m/workflow-a" })];
    const b = [run("acct_wf2", { pool: "m/workflow-b" })];
    await enqueue(s!, [...a, ...b]);
    // Both pools see the one server's one place; the first to fill it holds it for both.
    const first = await s!.setSlots("m/workflow-a", ["http://comfy#0"]);
    expect(first.map((d) => d.runId)).toEqual([a[0]!.runId]);
    expect(await s!.setSlots("m/workflow-b", ["http://comfy#0"])).toEqual([]);
    // Its end frees the place for the other model's run too: one of the two waiting runs takes it.
    const next = await s!.release([a[0]!.runId]);
    expect(next).toHaveLength(1);
    expect([a[1]!.runId, b[0]!.runId]).toContain(next[0]!.runId);
    const last = await s!.release([next[0]!.runId]);
    expect(last).toHaveLength(1);
    expect(await s!.release([last[0]!.runId])).toEqual([]);
    // The other model moves to another server: the two no longer share a place.
    await s!.setSlots("m/workflow-b", ["http://other#0"]);
    const both = await enqueue(s!, [
      run("acct_wf", { pool: "m/workflow-a" }),
      run("acct_wf2", { pool: "m/workflow-b" }),
    ]);
    expect(both.map((d) => d.slot).sort()).toEqual(["http://comfy#0", "http://other#0"]);
  });

  /** Two servers keeping 2 weights each; a1 loads X on g1, a2 loads Y on g2; then b1 (Y) waits before b2 (X). */
  async function warmScene(s: ReturnType<typeof redisScheduler>, pool: string) {
    const lora = (weights: string[]) => run("acct_w", { pool, weights });
    const [a1, a2] = [lora(["x".repeat(64)]), lora(["y".repeat(64)])];
    await enqueue(s, [a1!, a2!]);
    const first = await s.setSlots(pool, ["http://g1#0", "http://g2#0"], 2);
    expect(first.map((d) => [d.runId, d.slot])).toEqual([
      [a1!.runId, "http://g1#0"],
      [a2!.runId, "http://g2#0"],
    ]);
    const [b1, b2] = [lora(["y".repeat(64)]), lora(["x".repeat(64)])];
    expect(await enqueue(s, [b1!, b2!])).toEqual([]);
    return { a1: a1!, a2: a2!, b1: b1!, b2: b2! };
  }

  it("when a place frees on a server that has a waiting run's weights loaded, then that run goes there before the account's older ones, and hits and misses are counted", async () => {
    const [s] = make({ warmWaitMs: 60_000 });
    const { a1, a2, b1, b2 } = await warmScene(s!, "m/lora");
    // g1 holds X: the account's younger run that loads X takes it; b1 (Y) waits for g2, which holds Y.
    expect((await s!.release([a1.runId])).map((d) => [d.runId, d.slot])).toEqual([[b2.runId, "http://g1#0"]]);
    expect((await s!.release([a2.runId])).map((d) => [d.runId, d.slot])).toEqual([[b1.runId, "http://g2#0"]]);
    const { servers } = await s!.warmStats("m/lora");
    expect(servers.sort((x, y) => x.server.localeCompare(y.server))).toEqual([
      expect.objectContaining({ server: "http://g1", hits: 1, misses: 1, loads: 1 }),
      expect.objectContaining({ server: "http://g2", hits: 1, misses: 1, loads: 1 }),
    ]);
    // The misses' time on the slot was recorded when they gave it back.
    expect(servers.every((w) => w.missMs >= 0)).toBe(true);
  });

  it("when warm routing is off, then an account's runs go oldest first whatever a server has loaded", async () => {
    const [s] = make({ warmWaitMs: null });
    const { a1, b1, b2 } = await warmScene(s!, "m/lora-off");
    expect((await s!.release([a1.runId])).map((d) => d.runId)).toEqual([b1.runId]);
    expect((await s!.warmStats("m/lora-off")).servers.find((w) => w.server === "http://g1")).toMatchObject({
      hits: 0,
      misses: 2,
    });
    expect(b2).toBeDefined();
  });

  it("when an account's oldest run has been passed over for the bound, then it goes first, warm or not", async () => {
    const [s] = make({ warmWaitMs: 80 });
    const { a1, a2, b1, b2 } = await warmScene(s!, "m/lora-bound");
    const b3 = run("acct_w", { pool: "m/lora-bound", weights: ["x".repeat(64)] });
    await enqueue(s!, [b3]);
    // b1 (Y) is passed over for b2 (X, warm on g1)...
    expect((await s!.release([a1.runId])).map((d) => d.runId)).toEqual([b2.runId]);
    await new Promise((r) => setTimeout(r, 120));
    // ...and once the bound has passed it takes g1 cold, before b3 that g1 holds warm.
    expect((await s!.release([b2.runId])).map((d) => [d.runId, d.slot])).toEqual([[b1.runId, "http://g1#0"]]);
    expect((await s!.warmStats("m/lora-bound")).maxPassedMs).toBeGreaterThanOrEqual(80);
    expect((await s!.release([a2.runId])).map((d) => d.runId)).toEqual([b3.runId]);
  });

  it("when a server fails its health check, then the weights it had loaded are forgotten (a server that comes back has restarted)", async () => {
    const [s] = make({ warmWaitMs: 60_000 });
    const { a1, a2, b1 } = await warmScene(s!, "m/lora-restart");
    await s!.setSlots("m/lora-restart", ["http://g2#0"], 2);
    await s!.release([a1.runId]);
    const back = await s!.setSlots("m/lora-restart", ["http://g1#0", "http://g2#0"], 2);
    // g1 came back holding nothing: the oldest run goes there, not b2 (whose X it had).
    expect(back.map((d) => [d.runId, d.slot])).toEqual([[b1.runId, "http://g1#0"]]);
    expect(a2).toBeDefined();
  });

  it("when batch items and other accounts' runs wait, then the runs go first whatever the turns, and batch items hold at most their share of the places", async () => {
    const [s] = make();
    const pool = "m/batch-lane";
    await s!.setBatchShare(pool, 0.5);
    // Account b's batch items wait first, and a's ordinary runs after them.
    const items = Array.from({ length: 4 }, () => run("acct_batch", { pool, priority: "batch" }));
    await enqueue(s!, items);
    const ordinary = [run("acct_ord", { pool }), run("acct_ord", { pool, priority: "low" })];
    await enqueue(s!, ordinary);
    const first = await s!.setSlots(pool, ["http://b1#0", "http://b2#0", "http://b3#0", "http://b4#0"]);
    // Both ordinary runs, then batch items on half the places: 2 of 4, not all that are free.
    expect(first.map((d) => d.runId).sort()).toEqual(
      [...ordinary.map((r) => r.runId), items[0]!.runId, items[1]!.runId].sort(),
    );
    // An ordinary run that comes while batch items wait takes the next free place before them.
    const later = run("acct_ord", { pool });
    await enqueue(s!, [later]);
    expect((await s!.release([ordinary[0]!.runId])).map((d) => d.runId)).toEqual([later.runId]);
    // A batch item's end frees a batch place: the next item takes it.
    expect((await s!.release([items[0]!.runId])).map((d) => d.runId)).toEqual([items[2]!.runId]);
    // A free place beyond the share stays free for ordinary runs.
    expect(await s!.release([ordinary[1]!.runId])).toEqual([]);
  });

  it("when a pool's stats are read, then each busy slot of its capacity tells when its run was leased", async () => {
    const [s] = make();
    await s!.setSlots("m/since", ["http://one#0", "http://two#0", "http://three#0"]);
    const leasedWithin = async () => {
      const from = Date.now();
      const [d] = await enqueue(s!, [run("acct_since", { pool: "m/since" })]);
      return { runId: d!.runId, slot: d!.slot, from, to: Date.now() };
    };
    const first = await leasedWithin();
    const second = await leasedWithin();
    const since = (await s!.stats("m/since")).busySince.sort((a, b) => a - b);
    expect(since).toHaveLength(2);
    expect(since[0]).toBeGreaterThanOrEqual(first.from);
    expect(since[0]).toBeLessThanOrEqual(first.to);
    expect(since[1]).toBeGreaterThanOrEqual(second.from);
    expect(since[1]).toBeLessThanOrEqual(second.to);
    // The first run's server leaves: its run stays leased, but its slot is no longer capacity.
    const slots = ["http://one#0", "http://two#0", "http://three#0"].filter((x) => x !== first.slot);
    await s!.setSlots("m/since", slots);
    expect(await s!.stats("m/since")).toMatchObject({ capacity: 2, leased: 2 });
    expect((await s!.stats("m/since")).busySince).toEqual([since[1]]);
    // A run giving its slot back tells how long it held it.
    expect((await s!.stats("m/since")).held).toEqual([]);
    const from = Date.now();
    await s!.release([second.runId]);
    const [held] = (await s!.stats("m/since")).held;
    expect(held).toBeGreaterThanOrEqual(from - second.to);
    expect(held).toBeLessThanOrEqual(Date.now() - second.from);
  });

  it("when more accounts wait than a place reads at once, then places come from a snapshot of their turns and are still right", async () => {
    const [s] = make();
    const reads = stridePolicy(connections.at(-1)!, `${prefixes.at(-1)!}:sched:`);
    const pool = "m/crowd";
    const crowd = Array.from({ length: PLACE_RING_INLINE + 44 }, (_, i) =>
      run(`acct_${String(i).padStart(4, "0")}`, { pool }),
    );
    // One account with several runs: its later runs wait behind every other account's turn.
    const many = Array.from({ length: 3 }, () => run("acct_many", { pool }));
    await enqueue(s!, [...crowd, ...many]);
    const told = new Map<string, number>();
    for (const r of [...crowd.slice(0, 5), ...crowd.slice(-5), ...many]) {
      const place = (await reads.place(pool, r.runId))!;
      expect(place.accounts).toHaveLength(crowd.length + 1);
      told.set(r.runId, runsBefore(place.own, place.index, place.accounts));
    }
    const order = await drainOneSlot(s!, await s!.setSlots(pool, ["http://gpu#0"]));
    expect(order).toHaveLength(crowd.length + many.length);
    for (const [id, before] of told) expect(order.indexOf(id)).toBe(before);
  });

  it("when runs wait, are dispatched, canceled, parked and let back in line, then the pool's oldest waiting run is always the oldest in line", async () => {
    const [s] = make();
    const pool = "m/heads";
    const at = (ms: number) => new Date(2_000_000 + ms);
    const oldest = async () => (await s!.stats(pool)).oldestQueuedAt?.getTime() ?? null;
    const a = [run("acct_a", { pool, createdAt: at(10) }), run("acct_a", { pool, createdAt: at(40) })];
    const b = [
      run("acct_b", { pool, createdAt: at(20), keyId: "key_b", keyMaxConcurrentRuns: 1 }),
      run("acct_b", { pool, createdAt: at(30), keyId: "key_b", keyMaxConcurrentRuns: 1 }),
    ];
    // Enqueued out of order: the oldest is the oldest, not the first enqueued.
    await enqueue(s!, [b[1]!, a[1]!]);
    expect(await oldest()).toBe(at(30).getTime());
    await enqueue(s!, [b[0]!, a[0]!]);
    expect(await oldest()).toBe(at(10).getTime());
    // A canceled run leaves the line.
    expect(await s!.remove([a[0]!.runId])).toBe(1);
    expect(await oldest()).toBe(at(20).getTime());
    // Two slots: acct_b's oldest and acct_a's last run start.
    const dispatched = await s!.setSlots(pool, ["http://gpu#0", "http://gpu#1"]);
    expect(dispatched.map((d) => d.runId).sort()).toEqual([b[0]!.runId, a[1]!.runId].sort());
    expect(await oldest()).toBe(at(30).getTime());
    // acct_a's run ends: acct_b's next run is picked, but its key is at its limit: it waits aside,
    // out of line (still queued).
    expect(await s!.release([a[1]!.runId])).toEqual([]);
    expect(await s!.stats(pool)).toMatchObject({ queued: 1, oldestQueuedAt: null });
    // The key's run ends: its parked run goes back in line and takes a slot at once.
    expect((await s!.release([b[0]!.runId])).map((d) => d.runId)).toEqual([b[1]!.runId]);
    expect(await s!.stats(pool)).toMatchObject({ queued: 0, oldestQueuedAt: null });
  });
});
