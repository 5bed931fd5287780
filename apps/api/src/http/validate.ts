import type { z } from "zod";
import { ApiError } from "@svc/core";

/** Parses a request part against its schema, listing every failing field in the error's details. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: "query" | "body" | "path" | "header",
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ApiError(
    "VALIDATION_ERROR",
    `Invalid request ${where}.`,
    result.error.issues.map((issue) => ({ path: issue.path.join(".") || where, message: issue.message })),
  );
}
