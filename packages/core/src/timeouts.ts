// The execution time-out, in one place. A run's deadline is its start plus its model's
// execution_timeout_ms: set once, in the statement that starts it (packages/db's start.ts, from
// the database's clock), and kept by every later attempt. A run still EXECUTING past it ends
// FAILED with TIMEOUT, charged nothing, whoever notices first: the worker executing it (its
// attempt's signal aborts at the deadline: executionLimit) or the sweeper (overdue runs are
// settled so, and any worker still on them is told to stop). Either way the one settlement is
// timeoutDecision's, and a settlement that finds the run ended already changes nothing.
import type { SettlementDecision } from "./settlement.js";
import { timeLimit, type TimeLimit } from "./timeLimit.js";

/** A run that outlived its execution timeout (counted from its start): FAILED, charged nothing. */
export const timeoutDecision = (executionTimeoutMs: number): SettlementDecision => ({
  to: "FAILED",
  errorCode: "TIMEOUT",
  errorMessage: `The run exceeded its execution timeout of ${executionTimeoutMs} ms.`,
});

/** An attempt's signal: aborted at the run's deadline, or by its cancel (with the cancel's reason). */
export interface ExecutionLimit extends TimeLimit {
  /** Whether it was the deadline, not a cancel, that ended the attempt. */
  timedOut(): boolean;
}

/**
 * The signal an attempt executes under, its timer cleared (`clear`) when the attempt ends, so that
 * a finished run leaves no timer pending until its deadline. `now` is the database's clock.
 */
export function executionLimit(deadlineAt: Date, now: Date, cancel?: AbortSignal): ExecutionLimit {
  const limit = timeLimit(Math.max(1, deadlineAt.getTime() - now.getTime()), cancel);
  return { ...limit, timedOut: () => limit.signal.aborted && !cancel?.aborted };
}
