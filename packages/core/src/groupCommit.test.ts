import { groupCommit } from "./groupCommit.js";

const deferred = () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { gate, release };
};

describe("groupCommit", () => {
  it("when items arrive in one tick, then they are applied as one batch and each gets its own answer", async () => {
    const batches: number[][] = [];
    const gc = groupCommit<number, number>({
      apply: async (items) => {
        batches.push(items);
        return items.map((n) => n * 10);
      },
      windowMs: 0,
      maxBatch: 100,
      maxInFlight: 1,
    });
    const answers = await Promise.all([1, 2, 3].map((n) => gc.submit(n)));
    expect(answers).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it("when items have windows of their own, then patient ones wait for company, and a hurried one sends them along at once, in order", async () => {
    const batches: string[][] = [];
    const gc = groupCommit<string, string>({
      apply: async (items) => (batches.push(items), items),
      windowMs: null,
      windowOf: (item) => (item.startsWith("patient") ? 60_000 : item.startsWith("soon") ? 0 : null),
      maxBatch: 100,
      maxInFlight: 1,
    });
    const patient = [gc.submit("patient 1"), gc.submit("patient 2")];
    await new Promise((r) => setTimeout(r, 20));
    expect(batches).toEqual([]);
    await Promise.all([...patient, gc.submit("hurried")]);
    expect(batches).toEqual([["patient 1", "patient 2", "hurried"]]);
    // A shorter window than the one waiting brings the batch forward.
    await Promise.all([gc.submit("patient 3"), gc.submit("soon")]);
    expect(batches.at(-1)).toEqual(["patient 3", "soon"]);
  });

  /** A group commit whose first batch waits for `first.release()`; the batches it applied. */
  function gatedOnFirst(windowMs: number | null, maxBatch: number) {
    const batches: number[][] = [];
    const first = deferred();
    const gc = groupCommit<number, number>({
      apply: async (items) => {
        batches.push(items);
        if (batches.length === 1) await first.gate;
        return items;
      },
      windowMs,
      maxBatch,
      maxInFlight: 1,
    });
    return { gc, batches, first };
  }

  it("when there is no window, then an item goes at once, and only what arrives while it is applied waits for the next batch", async () => {
    const { gc, batches, first } = gatedOnFirst(null, 100);
    const all = [gc.submit(1)];
    // Applied before anything else ran: no timer, no tick.
    expect(batches).toEqual([[1]]);
    all.push(gc.submit(2), gc.submit(3));
    first.release();
    await Promise.all(all);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it("when a batch is running, then arrivals wait and form the next batch, never above maxBatch", async () => {
    const { gc, batches, first } = gatedOnFirst(0, 3);
    const all = [gc.submit(0)];
    await new Promise((r) => setImmediate(r));
    for (let i = 1; i <= 5; i++) all.push(gc.submit(i));
    expect(gc.pending).toBe(6);
    first.release();
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(batches).toEqual([[0], [1, 2, 3], [4, 5]]);
    await gc.drain();
    expect(gc.pending).toBe(0);
  });

  it("when two items share a key, then the later one goes in a later batch, after the earlier one's", async () => {
    const batches: string[][] = [];
    const gc = groupCommit<string, string>({
      apply: async (items) => {
        batches.push(items);
        return items;
      },
      windowMs: 0,
      maxBatch: 10,
      maxInFlight: 4,
      keyOf: (item) => item.split(":")[0],
    });
    await Promise.all(["a:1", "b:1", "a:2", "c:1", "a:3"].map((s) => gc.submit(s)));
    expect(batches[0]).toEqual(["a:1", "b:1", "c:1"]);
    expect(batches.slice(1)).toEqual([["a:2"], ["a:3"]]);
  });

  it("when a lane's batch is running, then that lane's arrivals wait and go together, while another lane's go at once", async () => {
    const batches: string[][] = [];
    const running = new Set<string>();
    let overlapped = false;
    const first = deferred();
    const gc = groupCommit<string, string>({
      apply: async (items) => {
        batches.push(items);
        const lanes = new Set(items.map((s) => s.split(":")[0]!));
        for (const lane of lanes) {
          if (running.has(lane)) overlapped = true;
          running.add(lane);
        }
        if (batches.length === 1) await first.gate;
        for (const lane of lanes) running.delete(lane);
        return items;
      },
      windowMs: 0,
      maxBatch: 10,
      maxInFlight: 4,
      laneOf: (item) => item.split(":")[0]!,
    });
    const all = [gc.submit("a:1")];
    await new Promise((r) => setImmediate(r));
    all.push(...["a:2", "b:1", "a:3"].map((s) => gc.submit(s)));
    await new Promise((r) => setImmediate(r));
    // b went on its own while a's first batch held the lane; a's next two wait for it, together.
    expect(batches).toEqual([["a:1"], ["b:1"]]);
    expect(gc.pending).toBe(3);
    first.release();
    expect(await Promise.all(all)).toEqual(["a:1", "a:2", "b:1", "a:3"]);
    expect(batches[2]).toEqual(["a:2", "a:3"]);
    expect(overlapped).toBe(false);
  });

  it("when a batch fails, then each of its items is rejected and later batches still run", async () => {
    let calls = 0;
    const gc = groupCommit<number, number>({
      apply: async (items) => {
        if (calls++ === 0) throw new Error("database away");
        return items;
      },
      windowMs: 1,
      maxBatch: 10,
      maxInFlight: 1,
    });
    const failed = await Promise.allSettled([gc.submit(1), gc.submit(2)]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await gc.submit(3)).toBe(3);
  });

  it("when a full batch forms, then it goes without waiting for the window", async () => {
    const gc = groupCommit<number, number>({
      apply: async (items) => items,
      windowMs: 60_000,
      maxBatch: 2,
      maxInFlight: 1,
    });
    expect(await Promise.all([gc.submit(1), gc.submit(2)])).toEqual([1, 2]);
  });
});
