// What a run becomes once a worker has tried to execute it: one decision for every way a run is
// executed (the usual start, an instant run, a prediction begun as its slot was leased). The
// worker says how the attempt ended; the rules are here.
import { blockedTerm, type RunErrorCode } from "@svc/core";
import type { RunOutcome } from "./lifecycle.js";

/** The content policy, before anything runs: the FAILED outcome, or null when the input passes. */
export function contentPolicyOutcome(
  input: Record<string, unknown>,
  blocklist: readonly string[],
): (RunOutcome & { to: "FAILED" }) | null {
  return blockedTerm(String(input.prompt ?? ""), blocklist)
    ? {
        to: "FAILED",
        errorCode: "CONTENT_POLICY",
        errorMessage: "The prompt was rejected by the content policy.",
      }
    : null;
}

/** A run whose input file was deleted or expired before it executed: FAILED, charged nothing. */
export const INPUT_FILE_UNAVAILABLE: RunOutcome & { to: "FAILED" } = {
  to: "FAILED",
  errorCode: "INPUT_FILE_UNAVAILABLE",
  errorMessage: "An input file of the run was deleted or expired before the run executed.",
};

/** How an attempt to execute a run ended, as the worker saw it. */
export type AttemptEnd =
  | { kind: "produced"; output: Record<string, unknown>; units: number }
  /** The run's deadline passed while it executed. */
  | { kind: "timed_out" }
  /** Its client canceled it (the cancel has settled it). */
  | { kind: "canceled" }
  /** The model server canceled the prediction itself. */
  | { kind: "canceled_by_model" }
  /** The model failed it, with the model's own reason. */
  | { kind: "model_failed"; code: RunErrorCode; message: string }
  /** Something failed on the worker's side (a crash, a lost connection): a retry may fix it. */
  | { kind: "broke"; lastAttempt: boolean };

export type AttemptDecision =
  /** Settle the run so. */
  | { settle: RunOutcome }
  /** Nothing to settle: the cancel did. */
  | { settle: null }
  /** Charged like any cancel, for the outputs it had delivered. */
  | { canceledByModel: true }
  /** Throw: the job is attempted again. */
  | { retry: true };

export function decideAttempt(end: AttemptEnd): AttemptDecision {
  switch (end.kind) {
    case "produced":
      return { settle: { to: "COMPLETED", output: end.output, units: end.units } };
    case "timed_out":
      return { settle: { to: "TIMEOUT" } };
    case "canceled":
      return { settle: null };
    case "canceled_by_model":
      return { canceledByModel: true };
    case "model_failed":
      return { settle: { to: "FAILED", errorCode: end.code, errorMessage: end.message } };
    case "broke":
      // The last attempt fails the run rather than leaving it to the sweeper forever.
      return end.lastAttempt
        ? {
            settle: {
              to: "FAILED",
              errorCode: "INTERNAL_ERROR",
              errorMessage: "The run could not be executed.",
            },
          }
        : { retry: true };
  }
}
