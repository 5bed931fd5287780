import type { OpenAPIRegistry, RouteConfig } from "@asteasolutions/zod-to-openapi";
import { documentedPath, GUARD_ERRORS, type HeaderDocs, type RouteGroup } from "../http/route.js";
import { ErrorBody } from "./responses.js";

type Responses = RouteConfig["responses"];

export const header = (description: string, example?: string) => ({
  description,
  schema: { type: "string" as const, ...(example && { example }) },
});
const REQUEST_ID = {
  "X-Request-Id": header(
    "Id of this request: the client's, if well formed, else a new one",
    "req_3RmyhIeXARDIpLowOdbJwH",
  ),
};
const RATE_HEADERS = {
  "RateLimit-Limit": header("Requests allowed per minute for this key", "600"),
  "RateLimit-Remaining": header("Requests left in the current minute", "599"),
  "RateLimit-Reset": header("Seconds until the window resets", "42"),
};

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid request (INVALID_JSON or VALIDATION_ERROR, with details)",
  401: "Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer",
  402: "Not enough available tokens (INSUFFICIENT_TOKENS), or the API key's spend budget for its period is used up (KEY_BUDGET_EXCEEDED); nothing was created",
  403: "Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN)",
  404: "Unknown id, or one of another account or mode",
  409: "Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED)",
  410: "The output was deleted after the retention period (OUTPUT_EXPIRED)",
  413: "Body larger than the limit (PAYLOAD_TOO_LARGE)",
  415: "Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE)",
  416: "The Range is not within the file (RANGE_NOT_SATISFIABLE); Content-Range: bytes */<size>",
  429: "Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After",
  500: "Unexpected error (INTERNAL_ERROR)",
  503: "Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After",
};

/**
 * The error body, for each status, with Retry-After where waiting helps: the contract's, or the
 * group's own API style's.
 */
export const errorResponses = (statuses: number[], style?: RouteGroup["errorStyle"]): Responses =>
  Object.fromEntries(
    [...new Set(statuses)].map((s) => [
      s,
      {
        description: (style?.text ?? ERROR_TEXT)[s] ?? ERROR_TEXT[s]!,
        headers: {
          ...REQUEST_ID,
          ...(s === 429 || s === 503
            ? { "Retry-After": header("Seconds to wait before retrying", "5") }
            : {}),
        },
        content: { "application/json": { schema: style?.schema ?? ErrorBody } },
      },
    ]),
  );

/** Every route of the group as an operation: its request, its answer, its group's errors. */
export function registerGroup(registry: OpenAPIRegistry, group: RouteGroup): void {
  for (const { declaration: d } of group.routes) {
    const params =
      group.params && d.params ? group.params.extend(d.params.shape) : (d.params ?? group.params);
    const errors = [
      ...(d.errors ?? []),
      ...(d.guards ?? []).flatMap((guard) => GUARD_ERRORS[guard]),
      ...group.errors,
    ];
    // Every answer carries its request id; the API's also the key's rate-limit state.
    const answerHeaders = { ...REQUEST_ID, ...(group.rateHeaders && RATE_HEADERS) };
    const responses: Responses = d.reply
      ? {
          [d.reply.status]: {
            description: d.reply.description,
            headers: { ...answerHeaders, ...(d.reply.headers satisfies HeaderDocs | undefined) },
            content: { "application/json": { schema: d.reply.schema } },
          },
          ...errorResponses(errors, group.errorStyle),
        }
      : {
          ...Object.fromEntries(
            Object.entries(d.responses ?? {}).map(([status, response]) => [
              status,
              /^2/.test(status) ? { ...response, headers: answerHeaders } : response,
            ]),
          ),
          ...errorResponses(errors, group.errorStyle),
        };
    registry.registerPath({
      method: d.method,
      path: `${group.prefix}${documentedPath(d.path)}`,
      tags: d.tags ?? group.tags,
      summary: d.summary,
      ...(d.description && { description: d.description }),
      request: {
        ...(params && { params }),
        ...(d.query && { query: d.query }),
        ...(d.headers && { headers: d.headers }),
        ...(d.upload && {
          body: {
            required: true,
            content: {
              "application/octet-stream": { schema: { type: "string", format: "binary" } },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: { content: { type: "string", format: "binary" } },
                  required: ["content"],
                },
              },
            },
          },
        }),
        ...(d.form && {
          body: {
            required: true,
            content: {
              "application/json": { schema: d.form.schema, example: d.form.example },
              "multipart/form-data": { schema: d.form.schema },
            },
          },
        }),
        ...(d.body && {
          body: {
            required: true,
            content: {
              "application/json": { schema: d.body.schema, example: d.body.example },
              ...(d.lines && {
                "application/jsonl": {
                  schema: { type: "string" as const, description: "One item a line, as `items` takes them" },
                },
              }),
            },
          },
        }),
      },
      responses,
      security: d.security ?? group.security,
    });
  }
}
