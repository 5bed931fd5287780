// Errors as Replicate's API answers them: problem details `{ title, detail, status }`, with
// `invalid_fields` for an input that does not validate (422). Replicate's clients raise ApiError
// with the body in its message, and retry 429 after Retry-After.
import type { ApiError } from "@svc/core";
import type { RouteGroup } from "../../http/route.js";
import { ReplicateError } from "./schemas.js";

const TITLES: Partial<Record<ApiError["code"], string>> = {
  VALIDATION_ERROR: "Input validation failed",
  INVALID_JSON: "Invalid JSON",
  UNAUTHORIZED: "Unauthenticated",
  MODEL_NOT_ALLOWED: "Forbidden",
  FORBIDDEN: "Forbidden",
  INSUFFICIENT_TOKENS: "Insufficient credit",
  KEY_BUDGET_EXCEEDED: "Insufficient credit",
  RATE_LIMITED: "Too many requests",
  TEST_RUN_QUOTA_EXCEEDED: "Too many requests",
  MODEL_QUEUE_FULL: "Too many requests",
};

const title = (error: ApiError) =>
  TITLES[error.code] ??
  error.code
    .toLowerCase()
    .replace(/_/g, " ")
    .replace(/^./, (c) => c.toUpperCase());

export const REPLICATE_ERRORS: NonNullable<RouteGroup["errorStyle"]> = {
  // Replicate answers a request it cannot take (a bad input, a bad field) 422.
  status: (error) => (error.code === "VALIDATION_ERROR" ? 422 : error.status),
  body: (error) => ({
    title: title(error),
    detail: [error.message, ...(error.details ?? []).map((d) => `- ${d.path}: ${d.message}`)].join("\n"),
    status: REPLICATE_ERRORS.status(error),
    ...(error.details?.length && {
      invalid_fields: error.details.map((d) => ({ type: "invalid", field: d.path, description: d.message })),
    }),
  }),
  schema: ReplicateError,
  text: {
    400: "The body is not JSON",
    401: "Missing, unknown or revoked API key",
    402: "Not enough tokens, or the key's spend budget is used up; nothing was created",
    403: "The key may not run this model",
    404: "Unknown id, or one of another account or mode",
    409: "The model cannot run now, or the Idempotency-Key was used with another body",
    413: "Body larger than the limit",
    415: "Body of another type",
    422: "Invalid input or request field (invalid_fields lists them)",
    429: "Over a limit; see Retry-After",
    500: "Unexpected error",
    503: "Postgres or Redis unavailable; retry after Retry-After",
  },
};
