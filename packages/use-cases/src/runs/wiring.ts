import type { RedisClient } from "@svc/queue";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import { redisScheduler, runTransport, type LaunchRuns, type RunQueues } from "@svc/queue";
import { createRunLifecycle, groupCommitSettings, runEventSettings } from "./lifecycle.js";

/** The settings the run lifecycle and the scheduler read (both apps' configurations have them). */
export interface RunWiringConfig {
  QUEUE_PREFIX: string;
  GROUP_COMMIT_WINDOW_MS: number;
  GROUP_COMMIT_SETTLE_WINDOW_MS: number;
  GROUP_COMMIT_BATCH_WINDOW_MS: number;
  GROUP_COMMIT_MAX_BATCH: number;
  GROUP_COMMIT_IN_FLIGHT: number;
  RUN_EVENTS_RETENTION_SECONDS: number;
  SCHEDULER_LEASE_MS: number;
  ACCOUNT_MAX_CONCURRENT_RUNS: number;
  WEIGHTS_ROUTING_WAIT_MS: number;
}

/**
 * The run lifecycle, its transport and the scheduler, wired the same way for the API (over its
 * fail-fast producer's queues) and the worker (over its own).
 */
export function wireRuns(
  config: RunWiringConfig,
  deps: {
    db: Db;
    redis: RedisClient;
    logger: Logger;
    queues: RunQueues;
    /** Runs leased a slot at their admission (the worker's dispatcher; default: their jobs). */
    launch?: LaunchRuns;
  },
) {
  const scheduler = redisScheduler(deps.redis, config.QUEUE_PREFIX, {
    leaseMs: config.SCHEDULER_LEASE_MS,
    defaultLimit: config.ACCOUNT_MAX_CONCURRENT_RUNS,
    warmWaitMs: config.WEIGHTS_ROUTING_WAIT_MS < 0 ? null : config.WEIGHTS_ROUTING_WAIT_MS,
  });
  const transport = runTransport(
    deps.redis,
    config.QUEUE_PREFIX,
    deps.queues,
    runEventSettings(config),
    scheduler,
    deps.launch,
  );
  const lifecycle = createRunLifecycle({
    db: deps.db,
    logger: deps.logger,
    queues: transport,
    groupCommit: groupCommitSettings(config),
  });
  return { lifecycle, transport, scheduler };
}
