import { randomUUID } from "node:crypto";
import {
  CANCEL_CHANNEL,
  COG_DONE_CHANNEL,
  duplicateAs,
  redisRefusal,
  startWorkerHeartbeat,
  whenRedisReady,
} from "@svc/queue";
import { primeRunTransitions, sqlPool } from "@svc/db";
import { assembleWorker } from "./assembly.js";
import { startCogCallbackServer } from "./cog/callbackServer.js";
import type { WorkerDeps } from "./deps.js";
import { startHousekeeping } from "./housekeeping.js";
import { startMetricsServer } from "./metrics.js";
import { processors, startProcessors } from "./processors.js";
import { brakeOnRedisErrors } from "./queueBrake.js";

export interface RunningWorker {
  /**
   * Stops taking work and waits for running work within the grace period, then closes the
   * connections. When the grace period runs out it returns at once, and the process must exit.
   */
  close(): Promise<void>;
}

async function waitForDependencies({ config, db, redis, logger }: WorkerDeps) {
  for (let attempt = 1; ; attempt++) {
    try {
      await sqlPool(db).query("SELECT 1");
      break;
    } catch (error) {
      logger.warn("waiting for postgres", { attempt, error: (error as Error).message });
      await new Promise((r) => setTimeout(r, Math.min(attempt * 500, 5_000)));
    }
  }
  // The connection's own errors are otherwise silent (it reconnects by itself): the last one says why.
  let lastError = "";
  const remember = (error: Error) => (lastError = error.message);
  redis.on("error", remember);
  for (let attempt = 1; ; attempt++) {
    const refusal = (await whenRedisReady(redis, 5_000))
      ? await redisRefusal(redis, config.QUEUE_PREFIX)
      : `not connected${lastError && `: ${lastError}`}`;
    if (!refusal) break;
    logger.warn("waiting for redis", { attempt, error: refusal });
    await new Promise((r) => setTimeout(r, Math.min(attempt * 500, 30_000)));
  }
  redis.off("error", remember);
}

/** Waits until Postgres and Redis answer (a worker may start before them), then starts processing. */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const { config, redis, logger } = deps;
  await waitForDependencies(deps);
  // The connections that starts and settlements use at once, their statements readied before the
  // first job (as the API does for creations): what fails here, the first runs do.
  await primeRunTransitions(
    sqlPool(deps.db),
    Math.min(config.DATABASE_POOL_SIZE, 2 * config.GROUP_COMMIT_IN_FLIGHT + 2),
    ["start", "settle"],
  ).catch((error: unknown) =>
    logger.warn("readying the run statements failed; the first runs will", { error }),
  );
  const prefix = config.QUEUE_PREFIX;
  const parts = assembleWorker(deps);
  const cogServer = config.COG_CALLBACK_URL
    ? await startCogCallbackServer({
        host: config.COG_CALLBACK_HOST,
        port: config.COG_CALLBACK_PORT,
        secretsKey: parts.secretsKey,
        results: parts.cogResults,
        progress: parts.cogProgress,
        // A prediction that ended frees its server's slot here, whichever worker waits for it.
        release: (runId) => parts.dispatcher.release(runId),
        logger,
      })
    : undefined;
  let draining = false;
  const metricsServer = config.METRICS_PORT
    ? await startMetricsServer(parts.metrics, config.METRICS_HOST, config.METRICS_PORT, () => draining)
    : undefined;

  const workers = startProcessors(processors(config, parts), redis, prefix);
  const brakes = [...workers].map(([name, worker]) => {
    const brake = brakeOnRedisErrors(worker);
    worker.on("error", (error) => {
      const pausedMs = brake.onError(error);
      logger.error(`${name} worker error`, { error, ...(pausedMs && { intake_paused_ms: pausedMs }) });
    });
    return brake;
  });
  const runWorkers = [workers.get("runs")!, workers.get("leased runs")!];
  for (const w of runWorkers)
    w.on("failed", (job, error) => logger.warn("run job failed", { job_id: job?.id, error: error.message }));

  // The start estimate of unlimited models counts the run slots of the workers alive now; the
  // built-in generators' pools their render threads.
  const stopHeartbeat = startWorkerHeartbeat(
    redis,
    prefix,
    randomUUID(),
    { slots: config.WORKER_CONCURRENCY, threads: parts.renderSlots },
    5_000,
    (error) => logger.warn("worker heartbeat failed", { error }),
  );

  // A cancel reaches every worker; the one holding the run aborts its runner.
  const subscriber = duplicateAs(redis, "worker");
  const [cancels, cogDone] = [CANCEL_CHANNEL.name(prefix), COG_DONE_CHANNEL.name(prefix)];
  await subscriber.subscribe(cancels, cogDone);
  subscriber.on("message", (channel: string, id: string) => {
    if (channel === cogDone && COG_DONE_CHANNEL.accepts(id)) {
      void parts.cogResults.announced(id);
    } else if (channel === cancels && CANCEL_CHANNEL.accepts(id)) {
      if (runWorkers.map((w) => w.cancelJob(id, "canceled")).some(Boolean))
        logger.info("run canceled while executing; runner aborted", { run_id: id });
    }
  });

  const stopHousekeeping = startHousekeeping(deps, parts);
  logger.info("worker ready", { concurrency: config.WORKER_CONCURRENCY, queue_prefix: prefix });

  return {
    async close() {
      draining = true;
      stopHousekeeping();
      for (const brake of brakes) brake.stop();
      cogServer?.close();
      // Finish running jobs within the grace period. Past it, stop waiting: the process exits, the
      // jobs' locks expire, and BullMQ's stalled-job check hands them to another worker. (A later
      // close(true) would not help: BullMQ returns the pending graceful close.)
      let timer: NodeJS.Timeout | undefined;
      await stopHeartbeat();
      const graceful = Promise.all([...workers.values()].map((w) => w.close())).then(() => true);
      const expired = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), config.SHUTDOWN_GRACE_MS);
      });
      const finished = await Promise.race([graceful, expired]);
      clearTimeout(timer);
      if (!finished) {
        // Closing the connections would wait for the running jobs too; the caller exits instead.
        // The leases of the runs left behind lapse, or are taken back by the worker that takes over.
        logger.warn("grace period over; leaving unfinished runs to other workers");
        return;
      }
      parts.dispatcher.close();
      await Promise.all([parts.lifecycle.drain(), parts.progress.drain()]);
      await Promise.allSettled([
        subscriber.quit(),
        ...Object.values(parts.queues).map((q) => q.close()),
        parts.runners.close(),
      ]);
      parts.store.close();
      metricsServer?.close();
      await parts.tracing.shutdown().catch(() => {});
      await Promise.allSettled([redis.quit(), deps.db.$disconnect()]);
    },
  };
}
