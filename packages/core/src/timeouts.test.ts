import { executionLimit, timeoutDecision } from "./timeouts.js";

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true }),
  );

describe("the execution time-out", () => {
  it("when the deadline passes, then the attempt's signal aborts as a time-out", async () => {
    const now = new Date("2026-01-01T00:00:00Z");
    const limit = executionLimit(new Date(now.getTime() + 20), now, new AbortController().signal);
    expect((await aborted(limit.signal)) as DOMException).toMatchObject({ name: "TimeoutError" });
    expect(limit.timedOut()).toBe(true);
  });

  it("when the run is canceled first, then the signal aborts with the cancel's reason, and it is no time-out", async () => {
    const cancel = new AbortController();
    const now = new Date();
    const limit = executionLimit(new Date(now.getTime() + 60_000), now, cancel.signal);
    cancel.abort(new Error("canceled by its client"));
    expect(limit.signal.reason).toEqual(new Error("canceled by its client"));
    expect(limit.timedOut()).toBe(false);
    limit.clear();
  });

  it("when the deadline has passed already (a retried attempt), then the signal aborts at once", async () => {
    const now = new Date();
    const limit = executionLimit(new Date(now.getTime() - 5_000), now);
    await aborted(limit.signal);
    expect(limit.timedOut()).toBe(true);
  });

  it("when the attempt ends first, then clearing the limit leaves the signal as it was", async () => {
    const now = new Date();
    const limit = executionLimit(new Date(now.getTime() + 30), now);
    limit.clear();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(limit.signal.aborted).toBe(false);
  });

  it("when a run times out, then it fails TIMEOUT, naming its limit", () => {
    expect(timeoutDecision(5_000)).toEqual({
      to: "FAILED",
      errorCode: "TIMEOUT",
      errorMessage: "The run exceeded its execution timeout of 5000 ms.",
    });
  });
});
