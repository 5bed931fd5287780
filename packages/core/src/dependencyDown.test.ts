import { isDependencyDown, retryWhileDown } from "./dependencyDown.js";

const down = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

describe("retryWhileDown", () => {
  function clock() {
    let t = 0;
    const slept: number[] = [];
    return {
      slept,
      now: () => t,
      sleep: async (ms: number) => {
        slept.push(ms);
        t += ms;
      },
    };
  }

  it("when the dependency is down and comes back, then fn is retried with doubling, capped delays and its value returned", async () => {
    const c = clock();
    let calls = 0;
    const value = await retryWhileDown(
      async () => {
        if (++calls < 7) throw down();
        return "settled";
      },
      { horizonMs: 60_000, firstDelayMs: 100, maxDelayMs: 1_000, sleep: c.sleep, now: c.now },
    );
    expect(value).toBe("settled");
    expect(c.slept).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it("when the error is not an outage, then it is thrown at once", async () => {
    const c = clock();
    const bug = new TypeError("undefined is not a function");
    await expect(retryWhileDown(() => Promise.reject(bug), { horizonMs: 60_000, ...c })).rejects.toBe(bug);
    expect(c.slept).toEqual([]);
  });

  it("when the outage outlasts the horizon, then the last error is thrown", async () => {
    const c = clock();
    await expect(
      retryWhileDown(() => Promise.reject(down()), { horizonMs: 5_000, maxDelayMs: 1_000, ...c }),
    ).rejects.toMatchObject({ code: "ECONNREFUSED" });
    expect(c.now()).toBeGreaterThanOrEqual(5_000);
  });

  it("when Postgres is shutting down or starting up, or a connection ends, then it counts as down", () => {
    expect(isDependencyDown(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe(
      true,
    );
    expect(isDependencyDown(Object.assign(new Error("starting up"), { code: "57P03" }))).toBe(true);
    expect(isDependencyDown(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDependencyDown(new Error("x", { cause: down() }))).toBe(true);
    expect(isDependencyDown(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  });
});
