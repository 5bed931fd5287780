// The request headers of the routes that make or wait for runs, said once for every API style that
// takes them (ours, Replicate's; OpenAI's takes Idempotency-Key alone).
import { z } from "zod";
import {
  CANCEL_AFTER_MAX_MS,
  CANCEL_AFTER_MIN_MS,
  parseCancelAfter,
  parsePreferWait,
  WAIT_MAX_SECONDS,
} from "@svc/core";
import { idempotencyKeyHeader } from "./startRun.js";

export const preferHeader = z
  .string()
  .optional()
  .meta({
    description: "wait, or wait=N (1 to 60 s): answer once the run has ended or N seconds have passed",
  })
  .transform((value, ctx) => {
    const seconds = parsePreferWait(value);
    if (seconds !== "invalid") return seconds;
    ctx.addIssue({ code: "custom", message: `expected wait or wait=N with N from 1 to ${WAIT_MAX_SECONDS}` });
    return z.NEVER;
  });

export const runHeaders = z.object({
  "idempotency-key": idempotencyKeyHeader,
  prefer: preferHeader,
  "cancel-after": z
    .string()
    .optional()
    .meta({
      description: "Cancel (and refund) the run if it has not ended this long after creation: 30s, 5m, 1h30m",
    })
    .transform((value, ctx) => {
      if (value === undefined) return null;
      const ms = parseCancelAfter(value);
      if (ms !== null) return ms;
      ctx.addIssue({
        code: "custom",
        message: `expected a duration such as 30s, 5m or 1h30m, from ${CANCEL_AFTER_MIN_MS / 1_000}s to ${CANCEL_AFTER_MAX_MS / 3_600_000}h`,
      });
      return z.NEVER;
    }),
});
