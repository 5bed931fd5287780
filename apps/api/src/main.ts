import { once } from "node:events";
import { configOrExit, loadApiConfig } from "@svc/config";
import { createDb } from "@svc/db";
import { createLogger } from "@svc/logger";
import { createRedis, createProducer } from "@svc/queue";
import { createApp } from "./app.js";
import { createApiMetrics } from "./metrics.js";
import { apiRunLifecycle } from "./runs/lifecycle.js";

const config = configOrExit(loadApiConfig);

const logger = createLogger({ service: "api", level: config.LOG_LEVEL });
const db = createDb({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
const redis = createRedis(config.REDIS_URL, "producer");
const queues = createProducer(redis, config.QUEUE_PREFIX);
const lifecycle = { draining: false };
const server = createApp({
  config,
  db,
  redis,
  logger,
  queues,
  runs: apiRunLifecycle(config, db, redis, queues, logger),
  metrics: createApiMetrics(),
  lifecycle,
}).listen(config.PORT, config.HOST);
await once(server, "listening");
const address = server.address();
logger.info("api listening", { port: typeof address === "object" && address ? address.port : config.PORT });

// 1. Drain: readiness fails (load balancers stop sending) and every response closes its
//    connection, so clients stop reusing kept-alive sockets. Closing an idle socket that a client
//    is just writing a request to would cut that request off.
// 2. Stop accepting; requests in flight finish within the grace period, then connections are cut.
// 3. Close the pools.
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info("api shutting down", {
    signal,
    drain_ms: config.SHUTDOWN_DRAIN_MS,
    grace_ms: config.SHUTDOWN_GRACE_MS,
  });
  const force = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
  lifecycle.draining = true;
  await new Promise((r) => setTimeout(r, config.SHUTDOWN_DRAIN_MS));
  server.close();
  await once(server, "close");
  clearTimeout(force);
  await Promise.allSettled([queues.close(), db.$disconnect()]);
  await redis.quit().catch(() => {});
  logger.info("api stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
