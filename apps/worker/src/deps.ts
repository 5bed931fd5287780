import type { RedisClient } from "@svc/queue";
import type { WorkerConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";

export interface WorkerDeps {
  config: WorkerConfig;
  db: Db;
  /** Blocking-capable connection (maxRetriesPerRequest: null) shared by BullMQ workers. */
  redis: RedisClient;
  logger: Logger;
}
