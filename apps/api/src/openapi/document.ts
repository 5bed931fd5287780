import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import swaggerUi from "swagger-ui-express";
import { z } from "zod";
import { CONSOLE, CONSOLE_MODE } from "../console/routes.js";
import { perApp, rawRoute, type RouteGroup } from "../http/route.js";
import { ADAPTERS, API_V1, FILES, OPERATIONS } from "../routes/api.js";
import { registerGroup } from "./register.js";
import * as R from "./responses.js";

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

const served = perApp(({ settings }) => buildOpenApiDocument(settings.PUBLIC_BASE_URL));
const page = perApp((deps) => swaggerUi.setup(served(deps), { customSiteTitle: "Model Run Service API" }));

/** This document and its rendering (swagger-ui's assets are served beside, under /docs/). */
export const DOCUMENTATION: RouteGroup = {
  prefix: "",
  security: [],
  errors: [],
  rateHeaders: false,
  tags: ["Documentation"],
  routes: [
    rawRoute({
      method: "get",
      path: "/api/v1/openapi.json",
      summary: "This document",
      responses: {
        200: { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } },
      },
      handler: (_input, { res, deps }) => void res.json(served(deps)),
    }),
    rawRoute({
      method: "get",
      path: "/docs",
      summary: "Human-readable API documentation rendered from this document",
      responses: {
        200: { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } },
      },
      handler: (_input, { req, res, next, deps }) => {
        page(deps)(req, res, next);
      },
    }),
  ],
};

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

/**
 * The OpenAPI 3.1 document of the service: its header, and every route group's declarations;
 * without the other API styles' groups (Replicate's, OpenAI's) when `adapters` is false (our SDK's
 * types: the SDK speaks our API only).
 */
export function buildOpenApiDocument(serverUrl: string, { adapters = true } = {}): OpenApiDocument {
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
  for (const group of [
    API_V1,
    ...(adapters ? ADAPTERS : []),
    CONSOLE,
    CONSOLE_MODE,
    OPERATIONS,
    DOCUMENTATION,
    FILES,
  ])
    registerGroup(registry, group);
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
      {
        name: "Replicate",
        description:
          "Replicate's HTTP API over the same runs, for Replicate's clients (`new Replicate({ auth: key, baseUrl: '<service>/replicate/v1' })`): predictions are runs, with Replicate's statuses, bodies, errors and webhooks",
      },
      {
        name: "OpenAI",
        description:
          "OpenAI's media API (images, videos, speech, models) over the same runs, for OpenAI's clients (`new OpenAI({ apiKey: key, baseURL: '<service>/openai/v1' })`): `model` is a model id of ours",
      },
      { name: "Operations", description: "Health, readiness and metrics" },
      { name: "Documentation", description: "This document and its rendering" },
    ],
  });
}
