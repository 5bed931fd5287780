import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { OUTPUT_MEDIA_TYPES } from "@svc/core";
import { listModelsQuery } from "../routes/models.js";
import { createRunBody, listRunsQuery, runHeaders, waitHeaders } from "../routes/runs.js";
import { createWebhookBody, deliveriesQuery, updateWebhookBody } from "../routes/webhooks.js";
import { ledgerQuery, usageQuery } from "../routes/account.js";
import { createKeyBody, signInBody } from "../console/routes.js";
import * as R from "./responses.js";

type Responses = RouteConfig["responses"];
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

const header = (description: string, example?: string) => ({
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
  402: "Not enough available tokens (INSUFFICIENT_TOKENS); nothing was created",
  403: "Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN)",
  404: "Unknown id, or one of another account or mode",
  409: "Conflict with the resource's state",
  410: "The output was deleted after the retention period (OUTPUT_EXPIRED)",
  413: "Body larger than the limit (PAYLOAD_TOO_LARGE)",
  415: "Body that is not application/json (UNSUPPORTED_MEDIA_TYPE)",
  429: "Over the per-key rate limit (RATE_LIMITED); see Retry-After",
  500: "Unexpected error (INTERNAL_ERROR)",
  503: "Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After",
};

const ok = (status: number, schema: z.ZodType, description: string, rate = true, extra = {}) => ({
  [status]: {
    description,
    headers: { ...REQUEST_ID, ...(rate && RATE_HEADERS), ...extra },
    content: { "application/json": { schema } },
  },
});
const PREFERENCE_APPLIED = {
  "Preference-Applied": header("Sent when Prefer: wait was honoured: the seconds waited at most", "wait=60"),
};

const errors = (...statuses: number[]): Responses =>
  Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: ERROR_TEXT[s]!,
        headers: {
          ...REQUEST_ID,
          ...(s === 429 || s === 503
            ? { "Retry-After": header("Seconds to wait before retrying", "5") }
            : {}),
        },
        content: { "application/json": { schema: R.ErrorBody } },
      },
    ]),
  );

/**
 * Every authenticated operation can also answer these: 400 for a path, query or body that cannot
 * be decoded or stored, 413 and 415 for a body sent where none (or no such body) is expected.
 */
const AUTHED = [400, 401, 413, 415, 429, 500, 503];

const modelId = z.string().meta({
  description: "Model id; it may contain slashes (vendor/model or vendor/family/variant)",
  example: "acme/pixel/fast",
});
const runId = z.string().meta({ example: "run_4ReEbWIXuDXbjwlguHgMmo" });
const webhookId = z.string().meta({ example: "wh_2kdpCM5tfN6vjSuI1aG2v2" });

function operations(registry: OpenAPIRegistry) {
  const v1 = (route: RouteConfig) =>
    registry.registerPath({ ...route, path: `/api/v1${route.path}`, security: [{ bearer: [] }] });

  v1({
    method: "get",
    path: "/models",
    tags: ["Models"],
    summary: "List active models",
    request: { query: listModelsQuery },
    responses: {
      ...ok(200, R.ModelList, "A page of active models, ordered by id"),
      ...errors(...AUTHED),
    },
  });
  v1({
    method: "get",
    path: "/models/{modelId}",
    tags: ["Models"],
    summary: "Read one model with its input schema and pricing",
    request: { params: z.object({ modelId }) },
    responses: { ...ok(200, z.object({ data: R.ModelDetail }), "The model"), ...errors(404, ...AUTHED) },
  });
  v1({
    method: "post",
    path: "/models/{modelId}/run",
    tags: ["Runs"],
    summary: "Start a run",
    description:
      "Validates input against the model's input schema (defaults applied), reserves estimated_tokens for live keys and queues the run. With an Idempotency-Key, the same key and body within 24 h return the original run. With `Prefer: wait` (or `wait=N`, 1 to 60 s; 60 by default) the answer waits until the run has ended or the time is up: an ended run answers with its terminal fields (status COMPLETED, FAILED or CANCELED), otherwise the answer is the usual `queued` one, and clients poll or stream. `Cancel-After` (`30s`, `5m`, `1h30m`, or seconds; 1 s to 24 h) cancels and refunds the run if it has not ended by then; its view then carries `error.code` CANCEL_AFTER. `webhook_events_filter` chooses what the run's own webhook_url receives (default completed and failed).",
    request: {
      params: z.object({ modelId }),
      headers: runHeaders,
      body: {
        required: true,
        content: {
          "application/json": {
            schema: createRunBody,
            example: {
              input: { prompt: "a lighthouse at dawn", image_size: "landscape_16_9", num_images: 2 },
              webhook_url: "https://example.com/hooks/runs",
            },
          },
        },
      },
    },
    responses: {
      ...ok(
        201,
        R.RunCreated,
        "The run, queued (or ended, with Prefer: wait), or the original run for a repeated Idempotency-Key",
        true,
        PREFERENCE_APPLIED,
      ),
      ...errors(402, 404, 409, ...AUTHED),
    },
  });
  v1({
    method: "get",
    path: "/runs",
    tags: ["Runs"],
    summary: "List runs, newest first",
    request: { query: listRunsQuery },
    responses: {
      ...ok(200, R.RunList, "A page of runs and the cursor of the next"),
      ...errors(...AUTHED),
    },
  });
  v1({
    method: "get",
    path: "/runs/{runId}",
    tags: ["Runs"],
    summary: "Read a run's status and result",
    description:
      "A queued run also shows its queue_position and estimated_start_at. With `Prefer: wait` (or `wait=N`, 1 to 60 s) the answer waits until the run has ended or the time is up (a long poll).",
    request: { params: z.object({ runId }), headers: waitHeaders },
    responses: {
      ...ok(200, R.RunResponse, "The run, with the fields of its status", true, PREFERENCE_APPLIED),
      ...errors(404, ...AUTHED),
    },
  });
  v1({
    method: "get",
    path: "/runs/{runId}/events",
    tags: ["Runs"],
    summary: "Stream a run's events (Server-Sent Events)",
    description: [
      "A `text/event-stream` of the run's events, ending after the terminal one:",
      "- `status`: each transition; data is the run's view as GET /runs/{runId} shows it (QUEUED with queue_position and estimated_start_at, EXECUTING, then the terminal view with output, tokens and error). A queued run's status is sent again when its position changes.",
      "- `progress`: what the runner reports while executing (see RunProgress): units done and asked for, the output so far, the model's logs.",
      "- a comment line (`: heartbeat`) every EVENTS_HEARTBEAT_MS.",
      "Events carry ids: reconnect with `Last-Event-ID` to receive only what came after (EventSource does it by itself). An ended run's events are kept RUN_EVENTS_RETENTION_SECONDS; later its stream gives the terminal status alone.",
    ].join("\n"),
    request: {
      params: z.object({ runId }),
      headers: z.object({
        "last-event-id": z.string().optional().meta({ description: "The id of the last event received" }),
      }),
    },
    responses: {
      200: {
        description: "The event stream",
        headers: { ...REQUEST_ID, ...RATE_HEADERS },
        content: {
          "text/event-stream": {
            schema: z.string().meta({
              example:
                'id: 1763800000000-0\nevent: status\ndata: {"run_id":"run_4ReEbWIXuDXbjwlguHgMmo","status":"QUEUED","model_id":"acme/pixel/fast","created_at":"2026-11-22T08:26:40.000Z","queue_position":3,"estimated_start_at":"2026-11-22T08:26:44.500Z"}\n\n',
            }),
          },
        },
      },
      ...errors(404, ...AUTHED),
    },
  });
  v1({
    method: "post",
    path: "/runs/{runId}/cancel",
    tags: ["Runs"],
    summary: "Cancel a queued or executing run",
    request: { params: z.object({ runId }) },
    responses: {
      ...ok(200, R.RunCanceled, "Canceled (also for a run already canceled)"),
      ...errors(404, 409, ...AUTHED),
    },
  });
  v1({
    method: "post",
    path: "/webhooks",
    tags: ["Webhooks"],
    summary: "Register a webhook endpoint",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: createWebhookBody,
            example: { url: "https://example.com/hooks", events: ["run.completed", "run.failed"] },
          },
        },
      },
    },
    responses: {
      ...ok(201, R.WebhookCreated, "The endpoint and its signing secret, shown only now"),
      ...errors(...AUTHED),
    },
  });
  v1({
    method: "get",
    path: "/webhooks",
    tags: ["Webhooks"],
    summary: "List webhook endpoints",
    responses: {
      ...ok(200, R.WebhookList, "The caller's endpoints (never their secrets)"),
      ...errors(...AUTHED),
    },
  });
  v1({
    method: "get",
    path: "/webhooks/default/secret",
    tags: ["Webhooks"],
    summary: "Signing secret of per-run webhook_url deliveries",
    responses: {
      ...ok(200, R.DefaultSecret, "The account's default secret for this mode"),
      ...errors(...AUTHED),
    },
  });
  const byId = { params: z.object({ webhookId }) };
  v1({
    method: "patch",
    path: "/webhooks/{webhookId}",
    tags: ["Webhooks"],
    summary: "Change the events an endpoint subscribes to",
    request: {
      ...byId,
      body: {
        required: true,
        content: {
          "application/json": { schema: updateWebhookBody, example: { events: ["run.completed"] } },
        },
      },
    },
    responses: { ...ok(200, R.WebhookResponse, "The endpoint"), ...errors(404, ...AUTHED) },
  });
  const endpointOps: [RouteConfig["method"], string, string, z.ZodType, string, number[]][] = [
    ["get", "", "Read a webhook endpoint", R.WebhookResponse, "The endpoint", []],
    ["delete", "", "Delete a webhook endpoint", R.WebhookDeleted, "Deleted", []],
    [
      "post",
      "/enable",
      "Re-enable a disabled endpoint (resets its failure count)",
      R.WebhookResponse,
      "The endpoint, active",
      [],
    ],
    [
      "post",
      "/rotate-secret",
      "Rotate the signing secret (the previous one signs alongside for 24 h)",
      R.SecretRotated,
      "The new secret, shown only now",
      [],
    ],
  ];
  for (const [method, suffix, summary, schema, description, extra] of endpointOps) {
    v1({
      method,
      path: `/webhooks/{webhookId}${suffix}`,
      tags: ["Webhooks"],
      summary,
      request: byId,
      responses: { ...ok(200, schema, description), ...errors(404, ...extra, ...AUTHED) },
    });
  }
  v1({
    method: "get",
    path: "/webhooks/{webhookId}/deliveries",
    tags: ["Webhooks"],
    summary: "Delivery log of an endpoint, newest first, with every attempt",
    request: { ...byId, query: deliveriesQuery },
    responses: { ...ok(200, R.DeliveryList, "A page of deliveries"), ...errors(404, ...AUTHED) },
  });
  v1({
    method: "post",
    path: "/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
    tags: ["Webhooks"],
    summary: "Send a delivery again (same body, new delivery id)",
    request: { params: z.object({ webhookId, deliveryId: z.string() }) },
    responses: { ...ok(202, R.Redelivered, "Queued"), ...errors(404, ...AUTHED) },
  });
  v1({
    method: "post",
    path: "/webhooks/{webhookId}/test",
    tags: ["Webhooks"],
    summary: "Send a signed webhook.test event",
    request: byId,
    responses: { ...ok(202, R.TestQueued, "Queued"), ...errors(404, ...AUTHED) },
  });

  v1({
    method: "get",
    path: "/account",
    tags: ["Account"],
    summary: "The account's tokens: balance, reserved and available",
    responses: { ...ok(200, R.AccountResponse, "The caller's account"), ...errors(...AUTHED) },
  });
  v1({
    method: "get",
    path: "/account/ledger",
    tags: ["Account"],
    summary: "The account's ledger, newest first (grants, reservations, charges, releases)",
    request: { query: ledgerQuery },
    responses: { ...ok(200, R.LedgerPage, "A page of ledger entries"), ...errors(...AUTHED) },
  });
  v1({
    method: "get",
    path: "/account/usage",
    tags: ["Account"],
    summary: "Tokens charged per UTC day (today included)",
    request: { query: usageQuery },
    responses: { ...ok(200, R.UsageResponse, "One entry per day, oldest first"), ...errors(...AUTHED) },
  });

  consoleOperations(registry);

  // No API key on these (security: [] says so explicitly); /metrics takes METRICS_TOKEN when set.
  const open = (path: string, summary: string, responses: Responses, tags = ["Operations"]) =>
    registry.registerPath({
      method: "get",
      path,
      tags,
      summary,
      responses,
      security: path === "/metrics" ? [{}, { metricsToken: [] }] : [],
    });
  open("/healthz", "Liveness: the process runs", ok(200, R.Health, "Alive", false));
  open("/readyz", "Readiness: Postgres and Redis answer (503 while draining for shutdown)", {
    ...ok(200, R.Ready, "Ready", false),
    ...errors(503),
  });
  open("/metrics", "Prometheus metrics (bearer METRICS_TOKEN when configured)", {
    200: {
      description: "Prometheus text exposition",
      content: { "text/plain": { schema: { type: "string" } } },
    },
    ...errors(401),
  });
  open(
    "/api/v1/openapi.json",
    "This document",
    { 200: { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } },
    ["Documentation"],
  );
  open(
    "/docs",
    "Human-readable API documentation rendered from this document",
    { 200: { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } } },
    ["Documentation"],
  );
  registry.registerPath({
    method: "get",
    path: "/files/{token}/{name}",
    tags: ["Runs"],
    summary: "A run's output file (public, unguessable URL; no key)",
    description:
      "Streamed from the configured store (a local directory or an S3-compatible bucket), with Range and conditional requests. With OUTPUT_URLS=signed, runs show presigned bucket URLs instead, made at each read; this path keeps serving the same files.",
    request: {
      params: z.object({
        token: z.string().meta({ example: "out_70roCqjUmmTprm0UySY0KD" }),
        name: z.string().meta({ example: "0.png" }),
      }),
    },
    responses: {
      200: {
        description:
          "The file, inline with its media type when it is one of the allowed output types; anything else as an application/octet-stream attachment. Always with X-Content-Type-Options: nosniff and Content-Security-Policy: default-src 'none'; sandbox.",
        content: Object.fromEntries(
          [...new Set(Object.values(OUTPUT_MEDIA_TYPES)), "application/octet-stream"].map((type) => [
            type,
            { schema: { type: "string", format: "binary" } },
          ]),
        ),
      },
      206: {
        description: "The part asked for with Range (Content-Range says which).",
        content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
      },
      304: { description: "Not modified (If-None-Match or If-Modified-Since)." },
      416: { description: "The Range cannot be satisfied." },
      ...errors(400, 404, 410, 503),
    },
    security: [],
  });
}

/**
 * The web console's own operations, authenticated by its session cookie (and X-CSRF-Token on
 * every state-changing request). The console reaches every /api/v1 operation above at
 * /console/api/{live|test}/… with the same session.
 */
function consoleOperations(registry: OpenAPIRegistry) {
  const CONSOLE_ERRORS = [400, 401, 403, 413, 415, 429, 500, 503];
  const op = (route: RouteConfig) =>
    registry.registerPath({
      ...route,
      path: `/console/api${route.path}`,
      tags: ["Console"],
      security: route.path === "/session" && route.method === "post" ? [] : [{ consoleSession: [] }],
    });
  const json = (schema: z.ZodType, example: object) => ({
    body: { required: true, content: { "application/json": { schema, example } } },
  });
  op({
    method: "post",
    path: "/session",
    summary: "Sign in with email and password; sets the session cookie",
    request: json(signInBody, { email: "demo@example.com", password: "correct horse battery" }),
    responses: {
      ...ok(201, R.SignedIn, "Signed in", false),
      ...errors(400, 401, 403, 413, 415, 429, 500, 503),
    },
  });
  op({
    method: "get",
    path: "/session",
    summary: "The signed-in person, their account and the CSRF token",
    responses: { ...ok(200, R.SessionResponse, "The session", false), ...errors(...CONSOLE_ERRORS) },
  });
  op({
    method: "post",
    path: "/session/sign-out",
    summary: "End the session",
    responses: { ...ok(200, R.SignedOut, "Signed out", false), ...errors(...CONSOLE_ERRORS) },
  });
  op({
    method: "get",
    path: "/keys",
    summary: "The account's API keys, newest first (prefixes only)",
    responses: { ...ok(200, R.KeyList, "Keys of both modes", false), ...errors(...CONSOLE_ERRORS) },
  });
  op({
    method: "post",
    path: "/keys",
    summary: "Create an API key (owners); the full key is in this answer only",
    request: json(createKeyBody, { name: "production server", mode: "live" }),
    responses: { ...ok(201, R.KeyCreated, "The key", false), ...errors(...CONSOLE_ERRORS) },
  });
  op({
    method: "post",
    path: "/keys/{keyId}/revoke",
    summary: "Revoke an API key (owners); it stops working within AUTH_CACHE_TTL_MS",
    request: { params: z.object({ keyId: z.string() }) },
    responses: { ...ok(200, R.KeyRevoked, "Revoked", false), ...errors(404, ...CONSOLE_ERRORS) },
  });
  op({
    method: "get",
    path: "/{mode}/runs/{runId}/detail",
    summary: "Everything the run page shows: input, output, error, timestamps, tokens",
    request: { params: z.object({ mode: z.enum(["live", "test"]), runId }) },
    responses: { ...ok(200, R.RunDetailResponse, "The run", false), ...errors(404, ...CONSOLE_ERRORS) },
  });
}

/** The OpenAPI 3.1 document of the service, built from the schemas the routes validate with. */
/**
 * What the service POSTs to webhook receivers, one entry per event, each signed with the
 * Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).
 */
function webhookPayloads(registry: OpenAPIRegistry) {
  for (const [event, schema] of Object.entries(R.WEBHOOK_PAYLOADS)) {
    registry.registerWebhook({
      method: "post",
      path: event,
      tags: ["Webhooks"],
      summary: `The ${event} event`,
      request: { body: { content: { "application/json": { schema } } } },
      responses: { 200: { description: "Any 2xx acknowledges the delivery; anything else is retried." } },
      // Sent by the service, not called by clients: the receiver checks the signature headers.
      security: [],
    });
  }
}

export function buildOpenApiDocument(serverUrl: string): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key: svc_live_… (charged) or svc_test_… (never charged)",
  });
  registry.registerComponent("securitySchemes", "consoleSession", {
    type: "apiKey",
    in: "cookie",
    name: "svc_session",
    description: "The web console's session (HttpOnly), with X-CSRF-Token on state-changing requests",
  });
  registry.registerComponent("securitySchemes", "metricsToken", {
    type: "http",
    scheme: "bearer",
    description: "METRICS_TOKEN, when the operator configured one",
  });
  operations(registry);
  webhookPayloads(registry);
  // Not a JSON response: the data of the event stream's progress events.
  registry.registerComponent(
    "schemas",
    "RunProgress",
    z.toJSONSchema(R.RunProgress, { target: "openapi-3.0" }) as never,
  );
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Model Run Service API",
      version: "1.0.0",
      description:
        "Run generative AI models (image, video, audio) asynchronously: list models, start runs, poll them or receive signed webhooks, cancel them. Tokens are reserved at start and settled on actual execution; test keys are never charged.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: "Models", description: "The model catalogue" },
      { name: "Runs", description: "Starting, reading and canceling runs" },
      { name: "Webhooks", description: "Endpoints, signed deliveries and their log" },
      { name: "Account", description: "Tokens: balance, ledger, usage" },
      {
        name: "Console",
        description:
          "The web console's own calls (session cookie). It reaches every /api/v1 operation at /console/api/{live|test}/… with the same session; run creation there names the API key it is attributed to in X-Api-Key-Id.",
      },
      { name: "Operations", description: "Health, readiness and metrics" },
      { name: "Documentation", description: "This document and its rendering" },
    ],
  });
}
