import {
  estimateStartMs,
  jainIndex,
  poolSlots,
  runsBefore,
  serverOfSlot,
  STRIDE,
  strideOf,
  type WaitingAccount,
} from "./scheduling.js";
import { isInstant, poolOf } from "./runnerKinds.js";

/** Simulates the scheduler's picks (lowest pass, ties by id; each pick advances by the stride). */
function picks(accounts: WaitingAccount[], n: number): string[] {
  const state = accounts.map((a) => ({ ...a }));
  const out: string[] = [];
  while (out.length < n) {
    const waiting = state.filter((a) => a.waiting > 0);
    if (!waiting.length) break;
    waiting.sort((a, b) => a.pass - b.pass || (a.accountId < b.accountId ? -1 : 1));
    const next = waiting[0]!;
    out.push(next.accountId);
    next.waiting--;
    next.pass += strideOf(next.weight);
  }
  return out;
}

describe("scheduling policy", () => {
  it("when a model is a Cog model, a generator or echo, then its pool is its servers, the workers' threads, or none", () => {
    expect(
      poolOf({
        kind: "cog",
        servers: ["http://a", "http://b"],
        output: "image",
        concurrency: 2,
        dispatch_attempts: 3,
        health_interval_ms: 2_000,
        request_timeout_ms: 10_000,
        predictions: "async",
        input_map: { rename: {}, expand: {} },
        loras: [],
        lora_cache: 8,
      }),
    ).toEqual({
      kind: "servers",
      servers: ["http://a", "http://b"],
      concurrency: 2,
      healthIntervalMs: 2_000,
      warmWeights: 0,
    });
    const withLoras = {
      kind: "cog" as const,
      servers: ["http://a"],
      output: "image" as const,
      concurrency: 1,
      dispatch_attempts: 3,
      health_interval_ms: 2_000,
      request_timeout_ms: 10_000,
      predictions: "async" as const,
      input_map: { rename: {}, expand: {} },
      loras: [{ url: "lora_weights", scale: "lora_scale" }],
      lora_cache: 5,
    };
    // A model whose runs take LoRAs: its servers keep lora_cache of them loaded (warm routing).
    expect(poolOf(withLoras)).toMatchObject({ warmWeights: 5 });
    expect(poolOf({ kind: "builtin", generator: "video", delay_ms: 0 })).toEqual({ kind: "workers" });
    expect(poolOf({ kind: "builtin", generator: "echo", delay_ms: 0 })).toBeNull();
  });

  it("when slots are made, then each healthy server has concurrency slots bound to it, threads are anonymous", () => {
    const pool = {
      kind: "servers" as const,
      servers: ["http://a:1", "http://b:2"],
      concurrency: 2,
      healthIntervalMs: 1,
      warmWeights: 0,
    };
    const slots = poolSlots(pool, ["http://b:2"], 0);
    expect(slots).toEqual(["http://b:2#0", "http://b:2#1"]);
    expect(slots.map(serverOfSlot)).toEqual(["http://b:2", "http://b:2"]);
    expect(poolSlots({ kind: "workers" }, [], 3)).toEqual(["worker#0", "worker#1", "worker#2"]);
    expect(serverOfSlot("worker#1")).toBeNull();
  });

  it("when weights differ, then strides are inverse to them and turns follow the weights", () => {
    expect(strideOf(1)).toBe(STRIDE);
    expect(strideOf(2)).toBe(STRIDE / 2);
    const order = picks(
      [
        { accountId: "a", pass: 0, weight: 2, waiting: 100 },
        { accountId: "b", pass: 0, weight: 1, waiting: 100 },
      ],
      30,
    );
    expect(order.filter((a) => a === "a")).toHaveLength(20);
  });

  it("when a run's place is asked, then it is the number of picks that come before it, for every run and weight", () => {
    const accounts: WaitingAccount[] = [
      { accountId: "acct_a", pass: 3 * STRIDE, weight: 1, waiting: 7 },
      { accountId: "acct_b", pass: 3 * STRIDE, weight: 3, waiting: 5 },
      { accountId: "acct_c", pass: 4 * STRIDE + 7, weight: 2, waiting: 9 },
      { accountId: "acct_d", pass: 2 * STRIDE, weight: 1, waiting: 1 },
    ];
    const order = picks(accounts, 100);
    for (const own of accounts)
      for (let index = 0; index < own.waiting; index++) {
        // The (index+1)-th pick of `own` in the simulated order.
        let seen = -1;
        const at = order.findIndex((a) => a === own.accountId && ++seen === index);
        expect(runsBefore(own, index, accounts)).toBe(at);
      }
  });

  it("when an estimate is asked, then free slots start at once and the rest in waves of capacity", () => {
    expect(estimateStartMs(0, { capacity: 2, executing: 1, meanRunMs: 1_000 })).toBe(0);
    expect(estimateStartMs(1, { capacity: 2, executing: 1, meanRunMs: 1_000 })).toBe(500);
    expect(estimateStartMs(3, { capacity: 2, executing: 2, meanRunMs: 1_000 })).toBe(1_500);
    expect(estimateStartMs(3, { capacity: 0, executing: 0, meanRunMs: 1_000 })).toBeNull();
  });

  it("when the pool knows how long its busy slots have run, then each run starts as its slot frees", () => {
    // Two slots, 1 s runs: one has run 900 ms (frees in 100), the other 200 ms (frees in 800).
    const pool = { capacity: 2, executing: 2, meanRunMs: 1_000, busyForMs: [200, 900] };
    expect([0, 1, 2, 3, 4].map((ahead) => estimateStartMs(ahead, pool))).toEqual([
      100, 800, 1_100, 1_800, 2_100,
    ]);
    // A slot whose run has taken longer than usual frees any moment; a free slot at once.
    expect(estimateStartMs(0, { ...pool, busyForMs: [1_500, 300] })).toBe(0);
    expect(estimateStartMs(1, { ...pool, busyForMs: [1_500, 300] })).toBe(700);
    expect(estimateStartMs(0, { ...pool, executing: 1, busyForMs: [300] })).toBe(0);
    expect(estimateStartMs(1, { ...pool, executing: 1, busyForMs: [300] })).toBe(700);
    expect(estimateStartMs(2, { ...pool, executing: 1, busyForMs: [300] })).toBe(1_000);
    expect(estimateStartMs(2, { ...pool, meanRunMs: null })).toBeNull();
  });

  it("when shares are even the fairness index is 1; when one takes everything it is 1/n", () => {
    expect(jainIndex([5, 5, 5])).toBe(1);
    expect(jainIndex([9, 0, 0])).toBeCloseTo(1 / 3);
  });

  it("when a run is echo without a delay, then it is instant (started and ended in one transition), and nothing else is", () => {
    expect(isInstant({ kind: "builtin", generator: "echo", delay_ms: 0 })).toBe(true);
    expect(isInstant({ kind: "builtin", generator: "echo", delay_ms: 50 })).toBe(false);
    expect(isInstant({ kind: "builtin", generator: "image", delay_ms: 0 })).toBe(false);
  });
});
