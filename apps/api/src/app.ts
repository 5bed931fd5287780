import express, { Router } from "express";
import swaggerUi from "swagger-ui-express";
import { DASHBOARD_PATH } from "./admin/queueDashboard.js";
import { authenticate } from "./auth/authenticate.js";
import { DOCUMENTATION } from "./openapi/document.js";
import type { AppDeps } from "./deps.js";
import { errorHandler, notFound } from "./http/errorHandler.js";
import { checkRequestTarget } from "./http/boundary.js";
import { jsonBodies } from "./http/jsonBody.js";
import { authFailureLimit, rateLimits } from "./http/rateLimit.js";
import { requestId } from "./http/requestId.js";
import { observeRequests } from "./http/observeRequests.js";
import { traceRequests } from "./http/traceRequests.js";
import { mountRoutes, type Guards, type RouteGroup } from "./http/route.js";
import { ADAPTERS, API_V1, FILES, OPERATIONS, adapterOf } from "./routes/api.js";
import { CONSOLE_API, consoleApi } from "./console/routes.js";
import { nobody } from "./console/operator/index.js";
import { DEFAULT_CONSOLE_DIR, consolePages } from "./console/static.js";

/** Routes that no key or session guards: none of their guards applies (and none is an operator's). */
const OPEN: Guards = { runCreation: null, owners: null, operators: nobody };

export function createApp(deps: AppDeps): express.Express {
  const { settings, logger } = deps;
  const app = express();
  app.disable("x-powered-by");
  // No ETag hashing of every response body: API answers are small and mostly uncacheable (run
  // creation, live statuses); output files keep theirs (express.static sets its own).
  app.set("etag", false);
  app.set("trust proxy", settings.TRUST_PROXY);
  app.set("query parser", "simple");

  app.use(
    requestId,
    ...(deps.tracing.enabled ? [traceRequests(deps.tracing)] : []),
    observeRequests(logger, deps.metrics),
    (_req, res, next) => {
      // While draining, clients are told not to reuse their connections, so none is idle (and
      // about to be reused) when the server finally closes them.
      if (deps.lifecycle.draining) res.set("Connection", "close");
      next();
    },
    checkRequestTarget,
  );
  const open = (group: RouteGroup) => mountRoutes(Router(), group.routes, deps, OPEN);
  app.use(open(OPERATIONS));
  // Generated outputs: public, unguessable paths; unknown files fall through to the JSON 404.
  // Errors are answered outside the router, where req.baseUrl is gone: keep the mount for the
  // metrics' route label.
  app.use(
    FILES.prefix,
    (_req, res, next) => {
      res.locals.mount = FILES.prefix;
      next();
    },
    open(FILES),
  );

  if (deps.dashboard) app.use(DASHBOARD_PATH, ...deps.dashboard.handlers);

  app.use("/docs", swaggerUi.serve);
  app.use(open(DOCUMENTATION));

  const limits = settings.RATE_LIMIT_ENABLED
    ? rateLimits({
        redis: deps.redis,
        prefix: settings.QUEUE_PREFIX,
        perMinute: settings.RATE_LIMIT_PER_MINUTE,
        runsPerMinute: settings.RATE_LIMIT_RUNS_PER_MINUTE,
        windowSeconds: settings.RATE_LIMIT_WINDOW_SECONDS,
      })
    : undefined;
  const authFailures = settings.RATE_LIMIT_ENABLED
    ? authFailureLimit(deps.redis, settings.QUEUE_PREFIX, settings.AUTH_FAILURES_PER_MINUTE, 60)
    : undefined;
  const keyAuth = authenticate(deps, authFailures);
  /**
   * A group of routes for API keys: authenticated before a body is read (anonymous callers cannot
   * make us parse one), rate limited, JSON bodies but for uploads.
   */
  const forKeys = (group: RouteGroup) => {
    const router = Router();
    // Errors are answered outside the router, where req.baseUrl is gone: keep the mount for the
    // metrics, as written here (req.baseUrl has the caller's case: /API/V1 would be a new label).
    router.use((_req, res, next) => {
      res.locals.mount = group.prefix;
      next();
    });
    router.use(keyAuth);
    if (limits) router.use(limits.all);
    router.use(...jsonBodies(settings.BODY_LIMIT_BYTES, group.routes));
    // API keys act for the whole account: the console's owners-only guard has no meaning here.
    router.use(
      mountRoutes(Router(), group.routes, deps, {
        runCreation: limits?.runCreation ?? null,
        owners: null,
        operators: nobody,
      }),
    );
    return router;
  };
  for (const group of [API_V1, ...ADAPTERS]) app.use(group.prefix, forKeys(group));

  // The web console: its API (session cookie instead of a key), then its pages.
  app.use(CONSOLE_API, consoleApi(deps, limits));
  app.use("/console", consolePages(settings.CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR, deps.outputs.mediaOrigin));

  app.use(notFound);
  // Another API style's paths answer every error in its own shape (adapterOf).
  app.use(errorHandler(logger, settings.BODY_LIMIT_BYTES, (req) => adapterOf(req.originalUrl)?.errorStyle));
  return app;
}
