import { ApiError } from "@svc/core";
import { sqlPool } from "@svc/db";
import { pingRedis, redisRefusal } from "@svc/queue";
import type { AppDeps } from "../deps.js";
import { rawRoute, route, type Route } from "../http/route.js";
import * as R from "../openapi/responses.js";

/** The promise's answer, or `late` once ms have passed. */
async function within<T>(promise: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((resolve) => (timer = setTimeout(() => resolve(late), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What is wrong with Postgres, or undefined when it answers in time. */
function postgresProblem(deps: AppDeps): Promise<string | undefined> {
  const ms = deps.settings.READY_TIMEOUT_MS;
  return within(
    sqlPool(deps.db)
      .query("SELECT 1")
      .then(
        () => undefined,
        () => "did not answer",
      ),
    ms,
    `no answer within ${ms} ms`,
  );
}

/**
 * What is wrong with Redis, or undefined when it answers and takes writes on the queues' keys: a
 * Redis that answers PING may still refuse them (a Cluster node addressed as one Redis, a replica,
 * a user without rights), and then no run would start.
 */
async function redisProblem(deps: AppDeps): Promise<string | undefined> {
  const ms = deps.settings.READY_TIMEOUT_MS;
  if (!(await pingRedis(deps.redis, ms))) return `no answer within ${ms} ms`;
  return within(redisRefusal(deps.redis, deps.settings.QUEUE_PREFIX), ms, `no answer within ${ms} ms`);
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
  summary:
    "Readiness: Postgres answers and Redis takes the queues' keys (503 naming what is wrong, and while draining for shutdown)",
  errors: [503],
  reply: { status: 200, schema: R.Ready, description: "Ready" },
  async handler(_input, { deps }) {
    if (deps.lifecycle.draining) throw new ApiError("SERVICE_UNAVAILABLE", "Shutting down.");
    const [postgres, redis] = await Promise.all([postgresProblem(deps), redisProblem(deps)]);
    const problems = Object.entries({ postgres, redis }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    );
    if (problems.length)
      throw new ApiError(
        "SERVICE_UNAVAILABLE",
        `Not ready: ${problems.map(([name]) => name).join(" and ")} cannot serve.`,
        problems.map(([name, message]) => ({ path: name, message })),
      );
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
  async handler(_input, { req, res, deps: { settings, metrics } }) {
    if (settings.METRICS_TOKEN && req.get("authorization") !== `Bearer ${settings.METRICS_TOKEN}`) {
      throw new ApiError("UNAUTHORIZED", "The metrics endpoint needs the configured METRICS_TOKEN.");
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  },
});

export const operationRoutes: Route[] = [healthz, readyz, metricsRoute];
