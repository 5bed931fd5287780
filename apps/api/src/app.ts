import express, { Router } from "express";
import { authenticate } from "./auth/authenticate.js";
import type { AppDeps } from "./deps.js";
import { errorHandler, notFound } from "./http/errorHandler.js";
import { parseJsonBody, requireJsonBody } from "./http/jsonBody.js";
import { rateLimit } from "./http/rateLimit.js";
import { requestId } from "./http/requestId.js";
import { requestLog } from "./http/requestLog.js";
import { healthRoutes } from "./routes/health.js";
import { modelRoutes } from "./routes/models.js";
import { runRoutes } from "./routes/runs.js";
import { webhookRoutes } from "./routes/webhooks.js";

export function createApp(deps: AppDeps): express.Express {
  const { config, logger } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY);
  app.set("query parser", "simple");

  app.use(requestId, requestLog(logger));
  app.use(healthRoutes(deps));
  // Generated outputs: public, unguessable paths; unknown files fall through to the JSON 404.
  app.use(
    "/files",
    express.static(config.OUTPUT_DIR, { index: false, dotfiles: "ignore", immutable: true, maxAge: "7d" }),
  );

  // Authenticate before reading a body, so that anonymous callers cannot make us parse one.
  const v1 = Router();
  v1.use(authenticate(deps));
  if (config.RATE_LIMIT_ENABLED) {
    v1.use(
      rateLimit({
        redis: deps.redis,
        prefix: config.QUEUE_PREFIX,
        perMinute: config.RATE_LIMIT_PER_MINUTE,
        runsPerMinute: config.RATE_LIMIT_RUNS_PER_MINUTE,
      }),
    );
  }
  v1.use(requireJsonBody, parseJsonBody(config.BODY_LIMIT_BYTES));
  v1.use(runRoutes(deps), modelRoutes(deps), webhookRoutes(deps));
  app.use("/api/v1", v1);

  app.use(notFound);
  app.use(errorHandler(logger, config.BODY_LIMIT_BYTES));
  return app;
}
