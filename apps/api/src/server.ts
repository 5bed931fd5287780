import type { ApiConfig } from "@svc/config";
import { createDb } from "@svc/db";
import type { Logger } from "@svc/logger";
import { createProducer, createRedis } from "@svc/queue";
import { queueDashboard } from "./admin/queueDashboard.js";
import { createApp } from "./app.js";
import type { AppDeps } from "./deps.js";
import { createApiMetrics } from "./metrics.js";
import { apiRunLifecycle } from "./runs/lifecycle.js";

export interface AssembledApi {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  /** Closes the queues, the dashboard and the pools (after the HTTP server has stopped). */
  close(): Promise<void>;
}

/**
 * The API process's parts, wired from its configuration: the one assembly used by main.ts and by
 * the tests, so that what the tests exercise (the dashboard included) is what operators run.
 */
export async function assembleApi(
  config: ApiConfig,
  logger: Logger,
  poolSize = config.DATABASE_POOL_SIZE,
): Promise<AssembledApi> {
  const db = createDb({ url: config.DATABASE_URL, poolSize });
  const redis = createRedis(config.REDIS_URL, "producer");
  const queues = createProducer(redis, config.QUEUE_PREFIX);
  const dashboard = config.ADMIN_PASSWORD
    ? await queueDashboard(config.REDIS_URL, config.QUEUE_PREFIX, config.ADMIN_PASSWORD)
    : undefined;
  const deps: AppDeps = {
    config,
    db,
    redis,
    logger,
    queues,
    runs: apiRunLifecycle(config, db, redis, queues, logger),
    metrics: createApiMetrics(),
    lifecycle: { draining: false },
    dashboard,
  };
  return {
    app: createApp(deps),
    deps,
    async close() {
      await Promise.allSettled([queues.close(), db.$disconnect(), dashboard?.close()]);
      if (redis.status === "ready") await redis.quit().catch(() => {});
      else redis.disconnect();
    },
  };
}
