import { z } from "zod";
import { ApiError } from "@svc/core";

/** Parses a request part against its schema, listing every failing field in the error's details. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: "query" | "body" | "path" | "header",
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: issue.path.join(".") || where,
    message: issue.message,
  }));
  // The first problem in the message too: clients and people that show only the message (most
  // do) still learn what to change.
  const more = details.length > 1 ? ` (and ${details.length - 1} more in details)` : "";
  throw new ApiError(
    "VALIDATION_ERROR",
    `Invalid request ${where}: ${details[0]!.path}: ${details[0]!.message}${more}.`,
    details,
  );
}

/**
 * An integer query parameter: digits only (no sign, exponent, hex or spaces, which Number() would
 * take), within [min, max], `fallback` when absent. The one integer parser of every query.
 */
export const queryInt = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `expected an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `expected an integer from ${min} to ${max}`)
        .max(max, `expected an integer from ${min} to ${max}`),
    )
    .default(fallback)
    // Documented as what it means (an integer in range), not as the digits it is parsed from.
    .meta({ type: "integer", minimum: min, maximum: max, default: fallback });

/** `limit` of the cursor-paged lists (runs, ledger, deliveries). */
export const pageLimit = queryInt(1, 100, 20);
