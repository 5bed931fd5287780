// Test runs for the scheduler: one maker per file, each run named in order (run_000001, ...) and
// created a millisecond after the last, an account's normal-lane run with no limits of its own.
import type { WaitingRun } from "../scheduler/index.js";

/** A maker of waiting runs with `defaults` (a pool, an account, a key), each field overridable. */
export function waitingRuns(defaults: Pick<WaitingRun, "accountId" | "keyId"> & Partial<WaitingRun>) {
  let seq = 0;
  return (extra: Partial<WaitingRun> = {}): WaitingRun => {
    seq += 1;
    return {
      runId: `run_${String(seq).padStart(6, "0")}`,
      pool: "m/slow",
      createdAt: new Date(1_000_000 + seq),
      priority: "normal",
      weight: 1,
      maxConcurrentRuns: null,
      keyMaxConcurrentRuns: null,
      ...defaults,
      ...extra,
    };
  };
}
