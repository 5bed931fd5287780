import { once } from "node:events";
import { ConfigError, type ApiConfig, loadApiConfig } from "@svc/config";
import { createDb } from "@svc/db";
import { createLogger } from "@svc/logger";
import { createRedis, createProducer } from "@svc/queue";
import { createApp } from "./app.js";
import { createApiMetrics } from "./metrics.js";

let config: ApiConfig;
try {
  config = loadApiConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(78);
}

const logger = createLogger({ service: "api", level: config.LOG_LEVEL });
const db = createDb({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
const redis = createRedis(config.REDIS_URL, "producer");
const queues = createProducer(redis, config.QUEUE_PREFIX);
const server = createApp({ config, db, redis, logger, queues, metrics: createApiMetrics() }).listen(
  config.PORT,
  config.HOST,
);
await once(server, "listening");
const address = server.address();
logger.info("api listening", { port: typeof address === "object" && address ? address.port : config.PORT });

// Stop accepting, let in-flight requests finish within the grace period, then close the pools.
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info("api shutting down", { signal });
  const force = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
  server.close();
  server.closeIdleConnections();
  await once(server, "close");
  clearTimeout(force);
  await Promise.allSettled([queues.close(), db.$disconnect()]);
  await redis.quit().catch(() => {});
  logger.info("api stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
