import { jest } from "@jest/globals";
import { ttlCache } from "./ttlCache.js";

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

describe("ttlCache", () => {
  it("when an id is asked again within its TTL, then it is not loaded again", async () => {
    const loads: string[] = [];
    const get = ttlCache(async (id) => (loads.push(id), `v:${id}`), 60_000);
    expect(await get("a")).toBe("v:a");
    expect(await get("a")).toBe("v:a");
    expect(await get("b")).toBe("v:b");
    expect(loads).toEqual(["a", "b"]);
  });

  it("when many callers miss the same id at once, then they share one load and its answer", async () => {
    const gate = deferred<string>();
    let loads = 0;
    const get = ttlCache(() => (loads++, gate.promise), 60_000);
    const waiting = Promise.all([get("a"), get("a"), get("a")]);
    gate.resolve("shared");
    expect(await waiting).toEqual(["shared", "shared", "shared"]);
    expect(loads).toBe(1);
  });

  it("when a load fails, then its waiters all get the error and the next caller loads again", async () => {
    const first = deferred<string>();
    const results = [first.promise, Promise.resolve("second")];
    let loads = 0;
    const get = ttlCache(() => results[loads++]!, 60_000);
    const waiting = Promise.allSettled([get("a"), get("a")]);
    first.reject(new Error("database away"));
    expect((await waiting).map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await get("a")).toBe("second");
    expect(loads).toBe(2);
  });

  it("when the TTL is 0 or depends on the value, then values are kept for that long only", async () => {
    let n = 0;
    const none = ttlCache(async () => ++n, 0);
    expect([await none("a"), await none("a")]).toEqual([1, 2]);

    const loads: string[] = [];
    const byValue = ttlCache(
      async (id) => (loads.push(id), id === "known" ? { found: true } : { found: false }),
      (v) => (v.found ? 60_000 : 0),
    );
    await byValue("known");
    await byValue("known");
    await byValue("unknown");
    await byValue("unknown");
    expect(loads).toEqual(["known", "unknown", "unknown"]);
  });

  it("when an entry has expired, then the next caller loads it afresh", async () => {
    const now = jest.spyOn(Date, "now");
    try {
      now.mockReturnValue(1_000);
      let n = 0;
      const get = ttlCache(async () => ++n, 100);
      expect(await get("a")).toBe(1);
      now.mockReturnValue(1_099);
      expect(await get("a")).toBe(1);
      now.mockReturnValue(1_100);
      expect(await get("a")).toBe(2);
    } finally {
      now.mockRestore();
    }
  });

  it("when more ids than the bound are kept, then the memo starts over instead of growing", async () => {
    const loads: string[] = [];
    const get = ttlCache(async (id) => (loads.push(id), id), 60_000, 2);
    for (const id of ["a", "b", "c", "a"]) await get(id);
    expect(loads).toEqual(["a", "b", "c", "a"]);
  });
});
