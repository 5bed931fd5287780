import { once } from "node:events";
import { configOrExit, loadApiConfig } from "@svc/config";
import { checkPooling } from "@svc/db";
import { createLogger, exitOnFatalErrors } from "@svc/logger";
import { whenRedisReady } from "@svc/queue";
import { assembleApi } from "./server.js";

const config = configOrExit(loadApiConfig);

const logger = createLogger({ service: "api", level: config.LOG_LEVEL });
exitOnFatalErrors(logger);
// Behind a transaction-mode pooler without DATABASE_POOLING=transaction about half of all
// requests would fail (prepared statements vanish between transactions): refuse to serve.
await checkPooling(config, (line) => {
  logger.error(line);
  process.exit(1);
});
const api = await assembleApi(config, logger);
// A moment for Redis before serving, so that the first requests' limits are counted there rather
// than per process; an API whose Redis is down still starts (and says so on /readyz). Meanwhile
// the process primes its connections and validators.
await Promise.all([whenRedisReady(api.deps.redis, config.READY_TIMEOUT_MS), api.prime()]);
const server = api.app.listen(config.PORT, config.HOST);
server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
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
  api.drain();
  await new Promise((r) => setTimeout(r, config.SHUTDOWN_DRAIN_MS));
  server.close();
  await once(server, "close");
  clearTimeout(force);
  await api.close();
  logger.info("api stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
