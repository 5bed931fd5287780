import v8 from "node:v8";
import vm from "node:vm";
import { timeLimit, withTimeLimit } from "./timeLimit.js";

// Collections forced while the limits run: on Node 20 a timeout that only a weak reference holds
// (AbortSignal.timeout under AbortSignal.any) is lost to the first one.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const collecting = () => {
  const timer = setInterval(gc, 5);
  return () => clearInterval(timer);
};
const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason)));

describe("timeLimit", () => {
  it("fires when the time is up, whatever garbage collection does meanwhile", async () => {
    const stop = collecting();
    try {
      const source = new AbortController();
      const reason = await aborted(timeLimit(60, source.signal).signal);
      expect((reason as DOMException).name).toBe("TimeoutError");
    } finally {
      stop();
    }
  });

  it("aborts with a source's reason, at once when it already has", async () => {
    const source = new AbortController();
    const limit = timeLimit(60_000, undefined, source.signal);
    source.abort(new Error("gone"));
    expect(limit.signal.aborted).toBe(true);
    expect((limit.signal.reason as Error).message).toBe("gone");
    expect(timeLimit(60_000, source.signal).signal.reason).toEqual(new Error("gone"));
  });

  it("leaves its sources when cleared, so a long-lived source gathers no listeners", async () => {
    const source = new AbortController();
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const limit = timeLimit(10, source.signal);
      limit.signal.addEventListener("abort", () => seen.push("aborted"));
      limit.clear();
    }
    source.abort();
    await new Promise((r) => setTimeout(r, 30));
    expect(seen).toEqual([]);
  });

  it("withTimeLimit hands the work its signal and clears it after", async () => {
    let signal: AbortSignal | undefined;
    await expect(withTimeLimit(30, [], async (s) => ((signal = s), "done"))).resolves.toBe("done");
    await new Promise((r) => setTimeout(r, 60));
    expect(signal!.aborted).toBe(false);
  });
});
