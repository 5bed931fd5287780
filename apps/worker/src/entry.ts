import { configOrExit, loadWorkerConfig } from "@svc/config";
import { checkPooling, dbFromConfig } from "@svc/db";
import { createLogger, exitOnFatalErrors } from "@svc/logger";
import { createRedis } from "@svc/queue";
import { Components } from "./components.js";
import { connectionsFirst, startWorker } from "./worker.js";

const config = configOrExit(loadWorkerConfig);

const logger = createLogger({ service: "worker", level: config.LOG_LEVEL });
exitOnFatalErrors(logger);
const db = dbFromConfig(config);
const redis = createRedis(config, "worker");
const components = new Components(logger);
connectionsFirst(components, { redis, db });
// Handlers go in before start-up so that a signal during start-up is not a hard kill: it stops
// whatever has started by then.
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info("worker shutting down", { signal, grace_ms: config.SHUTDOWN_GRACE_MS });
  await components.stop();
  logger.info("worker stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

// Behind a transaction-mode pooler without DATABASE_POOLING=transaction the prepared statements of the run
// transitions would vanish between transactions: refuse to work.
await checkPooling(config, (line) => {
  logger.error(line);
  process.exit(1);
});
await startWorker({ config, db, redis, logger }, components);
