import type { Redis } from "ioredis";
import type { ApiConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import { runTransport, type Producer } from "@svc/queue";
import { createRunLifecycle, groupCommitSettings, runEventSettings } from "@svc/use-cases";

/** The API's run lifecycle: transitions committed here, jobs and cancels sent through the producer. */
export function apiRunLifecycle(config: ApiConfig, db: Db, redis: Redis, queues: Producer, logger: Logger) {
  return createRunLifecycle({
    db,
    logger,
    queues: runTransport(redis, config.QUEUE_PREFIX, queues, runEventSettings(config)),
    groupCommit: groupCommitSettings(config),
  });
}
