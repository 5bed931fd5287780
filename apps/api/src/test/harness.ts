import { PassThrough } from "node:stream";
import type { Redis } from "ioredis";
import { apiEnvSchema, parseEnv, type ApiConfig } from "@svc/config";
import { createDb } from "@svc/db";
import { createLogger } from "@svc/logger";
import { createRedis, createProducer, whenRedisReady, type Producer } from "@svc/queue";
import {
  createTestDatabase,
  testQueuePrefix,
  TEST_REDIS_URL,
  TEST_SECRETS_KEY,
  deleteRedisPrefix,
  type TestDatabase,
} from "@svc/testkit";
import { queueDashboard } from "../admin/queueDashboard.js";
import { createApp } from "../app.js";
import { recordContractViolations } from "./contract.js";
import { createApiMetrics, type ApiMetrics } from "../metrics.js";
import { apiRunLifecycle } from "../runs/lifecycle.js";

export interface ApiHarness {
  app: ReturnType<typeof createApp>;
  database: TestDatabase;
  config: ApiConfig;
  redis: Redis;
  queues: Producer;
  metrics: ApiMetrics;
  logLines: string[];
  close(): Promise<void>;
}

/** A real app on its own cloned database and queue prefix, with captured log lines. */
export async function startApi(
  env: Record<string, string> = {},
  shared?: { database: TestDatabase },
): Promise<ApiHarness> {
  const database = shared?.database ?? (await createTestDatabase());
  const config = parseEnv(apiEnvSchema, {
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: testQueuePrefix(),
    AUTH_CACHE_TTL_MS: "0",
    CATALOGUE_CACHE_TTL_MS: "0",
    // High enough never to interfere; the rate-limit tests set their own.
    RATE_LIMIT_PER_MINUTE: "1000000",
    RATE_LIMIT_RUNS_PER_MINUTE: "1000000",
    SECRETS_KEY: TEST_SECRETS_KEY,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    LOG_LEVEL: "http",
    ...env,
  });
  const logLines: string[] = [];
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => logLines.push(...chunk.toString().split("\n").filter(Boolean)));
  const logger = createLogger({ service: "api", level: config.LOG_LEVEL, stream });
  const redis = createRedis(config.REDIS_URL, "producer");
  await whenRedisReady(redis, 2_000);
  // The app's own client, from its configuration, so that a test can point it at a dead server.
  const db = createDb({ url: config.DATABASE_URL, poolSize: 5 });
  const queues = createProducer(redis, config.QUEUE_PREFIX);
  const metrics = createApiMetrics();
  const dashboard = config.ADMIN_PASSWORD
    ? await queueDashboard(config.REDIS_URL, config.QUEUE_PREFIX, config.ADMIN_PASSWORD)
    : undefined;
  const app = createApp({
    config,
    db,
    redis,
    logger,
    queues,
    runs: apiRunLifecycle(config, db, redis, queues, logger),
    metrics,
    lifecycle: { draining: false },
    dashboard,
  });
  const violations = recordContractViolations(app);
  return {
    app,
    database,
    config,
    redis,
    queues,
    metrics,
    logLines,
    async close() {
      if (violations.length)
        throw new Error(`responses outside the OpenAPI document:\n${violations.join("\n")}`);
      await queues.close().catch(() => {});
      await dashboard?.close();
      redis.disconnect();
      await db.$disconnect();
      await deleteRedisPrefix(config.QUEUE_PREFIX);
      if (!shared) await database.drop();
    },
  };
}
