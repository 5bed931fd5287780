import express, { Router } from "express";
import swaggerUi from "swagger-ui-express";
import { ApiError } from "@svc/core";
import { DASHBOARD_PATH } from "./admin/queueDashboard.js";
import { authenticate } from "./auth/authenticate.js";
import { buildOpenApiDocument } from "./openapi/document.js";
import type { AppDeps } from "./deps.js";
import { errorHandler, notFound } from "./http/errorHandler.js";
import { checkJsonBody, checkRequestTarget } from "./http/boundary.js";
import { parseJsonBody, requireJsonBody } from "./http/jsonBody.js";
import { authFailureLimit, rateLimits } from "./http/rateLimit.js";
import { requestId } from "./http/requestId.js";
import { observeRequests } from "./http/observeRequests.js";
import { outputFiles } from "./outputs/files.js";
import { healthRoutes } from "./routes/health.js";
import { modelRoutes } from "./routes/models.js";
import { runRoutes } from "./routes/runs.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { accountRoutes } from "./routes/account.js";
import { CONSOLE_API, consoleApi } from "./console/routes.js";
import { signInLimit } from "./console/signInLimit.js";
import { DEFAULT_CONSOLE_DIR, consolePages } from "./console/static.js";

const V1 = "/api/v1";

export function createApp(deps: AppDeps): express.Express {
  const { config, logger } = deps;
  const app = express();
  app.disable("x-powered-by");
  // No ETag hashing of every response body: API answers are small and mostly uncacheable (run
  // creation, live statuses); output files keep theirs (express.static sets its own).
  app.set("etag", false);
  app.set("trust proxy", config.TRUST_PROXY);
  app.set("query parser", "simple");

  app.use(
    requestId,
    observeRequests(logger, deps.metrics),
    (_req, res, next) => {
      // While draining, clients are told not to reuse their connections, so none is idle (and
      // about to be reused) when the server finally closes them.
      if (deps.lifecycle.draining) res.set("Connection", "close");
      next();
    },
    checkRequestTarget,
  );
  app.use(healthRoutes(deps));
  app.get("/metrics", async (req, res) => {
    if (config.METRICS_TOKEN && req.get("authorization") !== `Bearer ${config.METRICS_TOKEN}`) {
      throw new ApiError("UNAUTHORIZED", "The metrics endpoint needs the configured METRICS_TOKEN.");
    }
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  // Generated outputs: public, unguessable paths; unknown files fall through to the JSON 404.
  app.use("/files", outputFiles(deps.outputs.store, logger));

  if (deps.dashboard) app.use(DASHBOARD_PATH, ...deps.dashboard.handlers);

  const openapi = buildOpenApiDocument(config.PUBLIC_BASE_URL);
  app.get("/api/v1/openapi.json", (_req, res) => {
    res.json(openapi);
  });
  app.use("/docs", swaggerUi.serve);
  app.get("/docs", swaggerUi.setup(openapi, { customSiteTitle: "Model Run Service API" }));

  // Authenticate before reading a body, so that anonymous callers cannot make us parse one.
  const v1 = Router();
  // Errors are answered outside the router, where req.baseUrl is gone: keep the mount for the
  // metrics, as written here (req.baseUrl has the caller's case: /API/V1 would be a new label).
  v1.use((_req, res, next) => {
    res.locals.mount = V1;
    next();
  });
  const limits = config.RATE_LIMIT_ENABLED
    ? rateLimits({
        redis: deps.redis,
        prefix: config.QUEUE_PREFIX,
        perMinute: config.RATE_LIMIT_PER_MINUTE,
        runsPerMinute: config.RATE_LIMIT_RUNS_PER_MINUTE,
        windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      })
    : undefined;
  const authFailures = config.RATE_LIMIT_ENABLED
    ? authFailureLimit(deps.redis, config.QUEUE_PREFIX, config.AUTH_FAILURES_PER_MINUTE, 60)
    : undefined;
  v1.use(authenticate(deps, authFailures));
  if (limits) v1.use(limits.all);
  v1.use(requireJsonBody, parseJsonBody(config.BODY_LIMIT_BYTES), checkJsonBody);
  // The API's operations, built once: the console mounts the same routers behind its session.
  const operations = Router().use(
    runRoutes(deps, limits?.runCreation),
    modelRoutes(deps),
    webhookRoutes(deps),
    accountRoutes(deps),
  );
  v1.use(operations);
  app.use(V1, v1);

  // The web console: its API (session cookie instead of a key), then its pages.
  const signIns = config.RATE_LIMIT_ENABLED
    ? signInLimit(
        deps.redis,
        config.QUEUE_PREFIX,
        config.SIGN_IN_ATTEMPTS_PER_EMAIL,
        config.SIGN_IN_ATTEMPTS_PER_ADDRESS,
      )
    : undefined;
  app.use(CONSOLE_API, consoleApi(deps, operations, signIns, limits?.all));
  app.use("/console", consolePages(config.CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR, deps.outputs.mediaOrigin));

  app.use(notFound);
  app.use(errorHandler(logger, config.BODY_LIMIT_BYTES));
  return app;
}
