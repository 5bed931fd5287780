// Errors as OpenAI's API answers them: `{ error: { message, type, param, code } }`, with the
// statuses its clients turn into typed errors (400 BadRequestError, 401 AuthenticationError, 403
// PermissionDeniedError, 404 NotFoundError, 409 ConflictError, 429 RateLimitError).
import type { ApiError } from "@svc/core";
import type { RouteGroup } from "../../http/route.js";
import { OpenAIErrorBody } from "./schemas.js";

/** Out of tokens is OpenAI's insufficient_quota: a 429 that retrying does not help. */
const QUOTA = new Set<ApiError["code"]>(["INSUFFICIENT_TOKENS", "KEY_BUDGET_EXCEEDED"]);

const TYPE_OF_STATUS: Record<number, string> = {
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  409: "conflict_error",
  429: "rate_limit_error",
};

export const OPENAI_ERRORS: NonNullable<RouteGroup["errorStyle"]> = {
  status: (error) => (QUOTA.has(error.code) ? 429 : error.status),
  body: (error, res) => {
    const quota = QUOTA.has(error.code);
    // OpenAI's clients retry 408, 409, 429 and 5xx unless told not to: a refusal that stays
    // (no tokens, a conflict) says so.
    if (quota || error.status === 409) res.set("x-should-retry", "false");
    const status = OPENAI_ERRORS.status(error);
    return {
      error: {
        message: error.message,
        type: quota
          ? "insufficient_quota"
          : status >= 500
            ? "server_error"
            : (TYPE_OF_STATUS[status] ?? "invalid_request_error"),
        param: error.details?.[0]?.path ?? null,
        code: quota ? "insufficient_quota" : error.code.toLowerCase(),
      },
    };
  },
  schema: OpenAIErrorBody,
  text: {
    400: "Invalid request (param names the parameter)",
    401: "Missing, unknown or revoked API key (AuthenticationError)",
    403: "The key may not use this model (PermissionDeniedError)",
    404: "Unknown model or id (NotFoundError)",
    409: "The model cannot run now, or the Idempotency-Key was used with another body (ConflictError)",
    413: "Body larger than the limit",
    415: "Body of another type",
    429: "Over a limit (RateLimitError, with Retry-After), or out of tokens (insufficient_quota, not retried)",
    500: "Unexpected error",
    502: "The run failed (its error's message)",
    503: "Postgres or Redis unavailable; retry after Retry-After",
    504: "The run did not end within SYNC_WAIT_MAX_SECONDS and was canceled",
  },
};
