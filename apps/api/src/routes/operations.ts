import { ApiError } from "@svc/core";
import { sqlPool } from "@svc/db";
import { pingRedis } from "@svc/queue";
import type { AppDeps } from "../deps.js";
import { rawRoute, route, type Route } from "../http/route.js";
import * as R from "../openapi/responses.js";

async function pingPostgres(deps: AppDeps): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sqlPool(deps.db).query("SELECT 1"),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), deps.config.READY_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const tags = ["Operations"];

/** The process is alive. */
const healthz = route({
  method: "get",
  path: "/healthz",
  tags,
  summary: "Liveness: the process runs",
  reply: { status: 200, schema: R.Health, description: "Alive" },
  handler: () => ({ data: { status: "ok" as const } }),
});

/** It can serve: Postgres and Redis answer, and it is not draining for shutdown. */
const readyz = route({
  method: "get",
  path: "/readyz",
  tags,
  summary: "Readiness: Postgres and Redis answer (503 while draining for shutdown)",
  errors: [503],
  reply: { status: 200, schema: R.Ready, description: "Ready" },
  async handler(_input, { deps }) {
    if (deps.lifecycle.draining) throw new ApiError("SERVICE_UNAVAILABLE", "Shutting down.");
    const [postgres, redis] = await Promise.all([
      pingPostgres(deps),
      pingRedis(deps.redis, deps.config.READY_TIMEOUT_MS),
    ]);
    if (!postgres || !redis) {
      const down = Object.entries({ postgres, redis }).filter(([, ok]) => !ok);
      throw new ApiError(
        "SERVICE_UNAVAILABLE",
        `Not ready: ${down.map(([name]) => name).join(" and ")} did not answer.`,
        down.map(([name]) => ({
          path: name,
          message: `no answer within ${deps.config.READY_TIMEOUT_MS} ms`,
        })),
      );
    }
    return { data: { status: "ready" as const, checks: { postgres: "ok" as const, redis: "ok" as const } } };
  },
});

const metricsRoute = rawRoute({
  method: "get",
  path: "/metrics",
  tags,
  summary: "Prometheus metrics (bearer METRICS_TOKEN when configured)",
  // No API key; METRICS_TOKEN when the operator set one.
  security: [{}, { metricsToken: [] }],
  errors: [401],
  responses: {
    200: {
      description: "Prometheus text exposition",
      content: { "text/plain": { schema: { type: "string" } } },
    },
  },
  async handler(_input, { req, res, deps: { config, metrics } }) {
    if (config.METRICS_TOKEN && req.get("authorization") !== `Bearer ${config.METRICS_TOKEN}`) {
      throw new ApiError("UNAUTHORIZED", "The metrics endpoint needs the configured METRICS_TOKEN.");
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  },
});

export const operationRoutes: Route[] = [healthz, readyz, metricsRoute];
