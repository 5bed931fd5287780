import { PassThrough } from "node:stream";
import { apiEnvSchema, parseEnv, type ApiConfig } from "@svc/config";
import { createLogger } from "@svc/logger";
import { whenRedisReady, type Producer, type RedisClient } from "@svc/queue";
import {
  createTestDatabase,
  testQueuePrefix,
  TEST_REDIS_URL,
  TEST_SECRETS_KEY,
  deleteRedisPrefix,
  type TestDatabase,
} from "@svc/testkit";
import type { createApp } from "../app.js";
import { recordContractViolations } from "./contract.js";
import type { AppDeps } from "../deps.js";
import type { ApiMetrics } from "../metrics.js";
import { assembleApi } from "../server.js";

export interface ApiHarness {
  scheduler: AppDeps["scheduler"];
  app: ReturnType<typeof createApp>;
  database: TestDatabase;
  config: ApiConfig;
  redis: RedisClient;
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
    AUTH_FAILURES_PER_MINUTE: "1000000",
    SECRETS_KEY: TEST_SECRETS_KEY,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    LOG_LEVEL: "http",
    ...env,
  });
  const logLines: string[] = [];
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => logLines.push(...chunk.toString().split("\n").filter(Boolean)));
  const logger = createLogger({ service: "api", level: config.LOG_LEVEL, stream });
  // The app's own clients, from its configuration, so that a test can point it at a dead server.
  const assembled = await assembleApi(config, logger, 5);
  const { app, deps } = assembled;
  const { redis, queues, metrics } = deps;
  await whenRedisReady(redis, 2_000);
  const violations = recordContractViolations(app);
  return {
    app,
    database,
    config,
    redis,
    queues,
    scheduler: deps.scheduler,
    metrics,
    logLines,
    async close() {
      await assembled.close();
      await deleteRedisPrefix(config.QUEUE_PREFIX);
      if (!shared) await database.drop();
      // After closing, so that a violation fails the file rather than leaving it hanging.
      if (violations.length)
        throw new Error(`responses outside the OpenAPI document:\n${violations.join("\n")}`);
    },
  };
}
