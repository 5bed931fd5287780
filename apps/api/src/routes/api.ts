import { FILES_PREFIX, fileRoutes } from "../outputs/files.js";
import type { RouteGroup } from "../http/route.js";
import { accountRoutes } from "./account.js";
import { modelRoutes } from "./models.js";
import { operationRoutes } from "./operations.js";
import { runRoutes } from "./runs.js";
import { webhookRoutes } from "./webhooks.js";
import { inputFileRoutes } from "./files.js";
import { weightsRoutes } from "./weights.js";
import { batchRoutes } from "./batches.js";
import { OPENAI_PREFIX, REPLICATE_PREFIX } from "@svc/core";
import { openAIRoutes } from "../adapters/openai/routes.js";
import { OPENAI_ERRORS } from "../adapters/openai/errors.js";
import { replicateRoutes } from "../adapters/replicate/routes.js";
import { REPLICATE_ERRORS } from "../adapters/replicate/errors.js";

// The route table: each group is mounted by app.ts and documented by openapi/document.ts.

/**
 * The public API, for API keys. Every operation can also answer these: 400 for a path, query or
 * body that cannot be decoded or stored, 413 and 415 for a body sent where none (or no such body)
 * is expected. The console mounts the same routes at /console/api/{live|test}.
 */
export const API_V1: RouteGroup = {
  prefix: "/api/v1",
  security: [{ bearer: [] }],
  errors: [400, 401, 413, 415, 429, 500, 503],
  rateHeaders: true,
  routes: [
    ...modelRoutes,
    ...runRoutes,
    ...inputFileRoutes,
    ...weightsRoutes,
    ...batchRoutes,
    ...webhookRoutes,
    ...accountRoutes,
  ],
};

/**
 * Replicate's API over the same runs (apps/api/src/adapters/replicate): API keys, Replicate's
 * paths, bodies and errors.
 */
export const REPLICATE: RouteGroup = {
  prefix: REPLICATE_PREFIX,
  security: [{ bearer: [] }],
  errors: [400, 401, 413, 415, 422, 429, 500, 503],
  rateHeaders: true,
  tags: ["Replicate"],
  routes: replicateRoutes,
  errorStyle: REPLICATE_ERRORS,
};

/**
 * OpenAI's media API over the same runs (apps/api/src/adapters/openai): API keys, OpenAI's paths,
 * bodies and errors.
 */
export const OPENAI: RouteGroup = {
  prefix: OPENAI_PREFIX,
  security: [{ bearer: [] }],
  errors: [400, 401, 413, 415, 429, 500, 503],
  rateHeaders: true,
  tags: ["OpenAI"],
  routes: openAIRoutes,
  errorStyle: OPENAI_ERRORS,
};

/** The groups of other API styles, each with its own error shape. */
export const ADAPTERS: readonly RouteGroup[] = [REPLICATE, OPENAI];

/**
 * The API style a request's URL is under, if not ours: its errors (those of the request's
 * boundary checks and of unknown paths too) are answered in that style's shape. Express matches
 * paths without regard to case, and so does this.
 */
export function adapterOf(url: string): RouteGroup | undefined {
  const path = url.toLowerCase();
  return ADAPTERS.find(
    (g) => path === g.prefix || path.startsWith(`${g.prefix}/`) || path.startsWith(`${g.prefix}?`),
  );
}

/** Health, readiness and metrics: no API key (security: [] says so explicitly). */
export const OPERATIONS: RouteGroup = {
  prefix: "",
  security: [],
  errors: [],
  rateHeaders: false,
  routes: operationRoutes,
};

/** Output files: public, unguessable URLs. */
export const FILES: RouteGroup = {
  prefix: FILES_PREFIX,
  security: [],
  errors: [],
  rateHeaders: false,
  routes: fileRoutes,
};
