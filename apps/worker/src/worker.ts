import { randomUUID } from "node:crypto";
import {
  CANCEL_CHANNEL,
  COG_DONE_CHANNEL,
  duplicateAs,
  INTERACTIVE_WAITING_CHANNEL,
  JOB_LANES,
  launchRuns,
  redisRefusal,
  startWorkerHeartbeat,
  whenRedisReady,
} from "@svc/queue";
import { primeRunTransitions, sqlPool } from "@svc/db";
import { assembleWorker } from "./assembly.js";
import { ABANDON, withinGrace, type Components } from "./components.js";
import { startCogCallbackServer } from "./cog/callbackServer.js";
import type { WorkerDeps } from "./deps.js";
import { startHousekeeping } from "./housekeeping.js";
import { startMetricsServer } from "./metrics.js";
import { processors, RUN_PROCESSOR_NAMES, startProcessors } from "./processors.js";
import { brakeOnRedisErrors } from "./queueBrake.js";
import { takeHandOffs } from "./scheduling/handoffs.js";

export interface RunningWorker {
  /**
   * Stops taking work and waits for running work within the grace period, then closes the
   * connections. When the grace period runs out it returns false at once, and the process must exit.
   */
  close(): Promise<boolean>;
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

/**
 * The connections as the first component: what starts later rests on them, and stops before them.
 * Still waiting for its dependencies, a QUIT would wait in the offline queue for a Redis that may
 * never answer: then the connection is just dropped.
 */
export function connectionsFirst(components: Components, { redis, db }: Pick<WorkerDeps, "redis" | "db">) {
  components.add("connections", () =>
    Promise.allSettled([redis.status === "ready" ? redis.quit() : redis.disconnect(), db.$disconnect()]),
  );
}

/**
 * The runs the API leased in the lanes this worker executes (scheduling/handoffs.ts), taken after
 * the processors start and stopped before they stop, whose drain then waits for those executing here.
 */
function startHandOffs(
  components: Components,
  { config, redis, logger }: WorkerDeps,
  parts: ReturnType<typeof assembleWorker>,
) {
  return components.start("hand-offs", () => {
    const taker = takeHandOffs({
      connection: duplicateAs(redis, "worker"),
      clock: redis,
      prefix: config.QUEUE_PREFIX,
      lanes: JOB_LANES.filter((lane) => parts.executes[lane]),
      launch: (dispatched) => parts.dispatcher.launch(dispatched),
      jobs: (dispatched) => launchRuns(parts.lanes.leased, dispatched),
      logger,
    });
    return () => taker.stop();
  });
}

/**
 * Waits until Postgres and Redis answer (a worker may start before them), then starts processing.
 * `components` holds what the caller started (the connections); the worker's own follow, in the
 * order they start: each rests only on those before it, and they stop in reverse.
 */
export async function startWorker(deps: WorkerDeps, components: Components): Promise<RunningWorker> {
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
  components.add("tracing", () => parts.tracing.shutdown().catch(() => {}));
  components.add("output store", () => parts.store.close());
  components.add("runners", () => parts.runners.close());
  components.add("queues", () => Promise.allSettled(Object.values(parts.queues).map((q) => q.close())));
  // Transitions already submitted commit, and their events are sent, before the queues close.
  components.add("run pipelines", () => Promise.all([parts.lifecycle.drain(), parts.progress.drain()]));
  components.add("dispatcher", () => parts.dispatcher.close());

  let draining = false;
  if (config.METRICS_PORT) {
    const port = config.METRICS_PORT;
    await components.start("metrics", async () => {
      const server = await startMetricsServer(parts.metrics, config.METRICS_HOST, port, () => draining);
      return () => server.close();
    });
  }

  // A cancel reaches every worker; the one holding the run aborts its runner. Subscribed before
  // the processors start and kept until they have stopped: a run canceled during the grace period
  // is aborted too. An interactive run waiting where batch items hold places reaches every worker
  // too (dispatcher.interactiveWaits).
  let runWorkers: { cancelJob(id: string, reason: string): boolean }[] = [];
  await components.start("cancel subscriber", async () => {
    const subscriber = duplicateAs(redis, "worker");
    const [cancels, cogDone, interactive] = [
      CANCEL_CHANNEL.name(prefix),
      COG_DONE_CHANNEL.name(prefix),
      INTERACTIVE_WAITING_CHANNEL.name(prefix),
    ];
    await subscriber.subscribe(cancels, cogDone, interactive);
    subscriber.on("message", (channel: string, id: string) => {
      if (channel === cogDone && COG_DONE_CHANNEL.accepts(id)) {
        void parts.cogResults.announced(id);
      } else if (channel === interactive && INTERACTIVE_WAITING_CHANNEL.accepts(id)) {
        parts.dispatcher.interactiveWaits(id);
      } else if (channel === cancels && CANCEL_CHANNEL.accepts(id)) {
        if (
          [...runWorkers.map((w) => w.cancelJob(id, "canceled")), parts.local.cancel(id, "canceled")].some(
            Boolean,
          )
        )
          logger.info("run canceled while executing; runner aborted", { run_id: id });
      }
    });
    return () => subscriber.quit();
  });

  // Cog servers report to it until the processors have stopped: the predictions of runs finishing
  // within the grace period end by their callbacks.
  if (config.COG_CALLBACK_URL)
    await components.start("cog callbacks", async () => {
      const server = await startCogCallbackServer({
        host: config.COG_CALLBACK_HOST,
        port: config.COG_CALLBACK_PORT,
        secretsKey: parts.secretsKey,
        results: parts.cogResults,
        progress: parts.cogProgress,
        // A prediction that ended frees its server's slot here, whichever worker waits for it.
        release: (runId) => parts.dispatcher.release(runId),
        uploads: { storage: parts.storage, maxBytes: config.OUTPUT_MAX_BYTES },
        logger,
      });
      return () => server.close();
    });

  await components.start("processors", () => {
    const workers = startProcessors(processors(config, parts), redis, prefix);
    const brakes = [...workers].map(([name, worker]) => {
      const brake = brakeOnRedisErrors(worker);
      worker.on("error", (error) => {
        const pausedMs = brake.onError(error);
        logger.error(`${name} worker error`, { error, ...(pausedMs && { intake_paused_ms: pausedMs }) });
      });
      return brake;
    });
    const runs = RUN_PROCESSOR_NAMES.flatMap((name) => workers.get(name) ?? []);
    runWorkers = runs;
    for (const w of runs)
      w.on("failed", (job, error) =>
        logger.warn("run job failed", { job_id: job?.id, error: error.message }),
      );
    return async () => {
      for (const brake of brakes) brake.stop();
      // Finish running jobs within the grace period. Past it, stop waiting: the process exits, the
      // jobs' locks expire, and BullMQ's stalled-job check hands them to another worker; the
      // leases of their runs lapse, or are taken back by the worker that takes over. Closing the
      // connections would wait for the running jobs too, so nothing after this stops. (A later
      // close(true) would not help: BullMQ returns the pending graceful close.)
      const graceful = Promise.all([...[...workers.values()].map((w) => w.close()), parts.local.drain()]);
      if ((await withinGrace(graceful, config.SHUTDOWN_GRACE_MS)) !== ABANDON) return;
      logger.warn("grace period over; leaving unfinished runs to other workers");
      return ABANDON;
    };
  });

  await startHandOffs(components, deps, parts);

  // The start estimate of unlimited models counts the run slots of the workers alive now; the
  // built-in generators' pools their render threads. A stopping worker leaves the count first.
  components.add(
    "heartbeat",
    startWorkerHeartbeat(
      redis,
      prefix,
      randomUUID(),
      { slots: config.WORKER_CONCURRENCY, threads: parts.renderSlots },
      5_000,
      (error) => logger.warn("worker heartbeat failed", { error }),
    ),
  );
  components.add("housekeeping", startHousekeeping(deps, parts));
  // The first to stop: readiness says the worker drains.
  components.add("readiness", () => (draining = true));
  logger.info("worker ready", {
    concurrency: config.WORKER_CONCURRENCY,
    lanes: config.WORKER_LANES,
    queue_prefix: prefix,
  });
  return { close: () => components.stop() };
}
