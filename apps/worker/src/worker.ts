import { Worker } from "bullmq";
import { parseSecretsKey, retryDelay } from "@svc/core";
import { randomUUID } from "node:crypto";
import {
  CANCEL_CHANNEL,
  COG_DONE_CHANNEL,
  createDeadlinesQueue,
  createDeliveriesQueue,
  createRunsQueue,
  DEADLINE_JOB,
  DELIVERY_JOB,
  register,
  RUN_JOB,
  runTransport,
  startWorkerHeartbeat,
  whenRedisReady,
} from "@svc/queue";
import { createRunners } from "@svc/runners";
import { sqlPool } from "@svc/db";
import { configuredOutputUrls, createOutputStore, runOutputs } from "@svc/storage";
import {
  createProgressRecorder,
  createRunLifecycle,
  groupCommitSettings,
  runEventSettings,
} from "@svc/use-cases";
import { cogWebhookUrl, startCogCallbackServer } from "./cog/callbackServer.js";
import { redisCogResults } from "./cog/results.js";
import type { WorkerDeps } from "./deps.js";
import { loadBlocklist } from "./runs/contentPolicy.js";
import { executeRun, type ExecuteOutcome } from "./runs/executeRun.js";
import { createWorkerMetrics, startMetricsServer } from "./metrics.js";
import { sweepRuns } from "./runs/sweeper.js";
import { deliverWebhook } from "./webhooks/deliverWebhook.js";
import { webhookSender } from "./webhooks/sendWebhook.js";
import { sweepDeliveries } from "./webhooks/sweepDeliveries.js";

export interface RunningWorker {
  /**
   * Stops taking work and waits for running work within the grace period, then closes the
   * connections. When the grace period runs out it returns at once, and the process must exit.
   */
  close(): Promise<void>;
}

async function waitForDependencies({ db, redis, logger }: WorkerDeps) {
  for (let attempt = 1; ; attempt++) {
    try {
      await sqlPool(db).query("SELECT 1");
      break;
    } catch (error) {
      logger.warn("waiting for postgres", { attempt, error: (error as Error).message });
      await new Promise((r) => setTimeout(r, Math.min(attempt * 500, 5_000)));
    }
  }
  while (!(await whenRedisReady(redis, 5_000))) logger.warn("waiting for redis");
}

/** Waits until Postgres and Redis answer (a worker may start before them), then starts processing. */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const { config, db, redis, logger } = deps;
  await waitForDependencies(deps);
  const prefix = config.QUEUE_PREFIX;
  const runsQueue = createRunsQueue(redis, prefix);
  const deliveriesQueue = createDeliveriesQueue(redis, prefix);
  const deadlinesQueue = createDeadlinesQueue(redis, prefix);
  const transport = runTransport(
    redis,
    prefix,
    { runs: () => runsQueue, deliveries: () => deliveriesQueue, deadlines: () => deadlinesQueue },
    runEventSettings(config),
  );
  const progress = createProgressRecorder({ db, recordEvents: transport.recordEvents, logger });
  const secretsKey = parseSecretsKey(config.SECRETS_KEY);
  const cogResults = redisCogResults(redis, prefix, config.COG_RESULT_POLL_MS);
  const callbackBase = config.COG_CALLBACK_URL;
  const cogServer = callbackBase
    ? await startCogCallbackServer({
        host: config.COG_CALLBACK_HOST,
        port: config.COG_CALLBACK_PORT,
        secretsKey,
        results: cogResults,
        recordProgress: (runId, report) => progress.record(runId, report),
        logger,
      })
    : undefined;
  const metrics = createWorkerMetrics({ runs: runsQueue, deliveries: deliveriesQueue });
  const metricsServer = config.METRICS_PORT
    ? await startMetricsServer(metrics, config.METRICS_HOST, config.METRICS_PORT)
    : undefined;
  const store = createOutputStore(config);
  const runners = createRunners({
    generatorThreads: config.GENERATOR_THREADS,
    ffmpegPath: config.FFMPEG_PATH,
    ...(callbackBase && {
      cog: {
        results: cogResults,
        webhookUrl: (id: string) => cogWebhookUrl(callbackBase, secretsKey, id),
        allowPrivateOutputs: config.WEBHOOK_ALLOW_PRIVATE_URLS,
        maxOutputBytes: config.OUTPUT_MAX_BYTES,
        log: (message: string, meta: Record<string, unknown>) => logger.info(message, meta),
      },
    }),
  });
  const runLifecycle = createRunLifecycle({
    db,
    logger,
    queues: transport,
    groupCommit: groupCommitSettings(config),
  });
  const executeDeps = {
    runs: runLifecycle,
    progress,
    outageHorizonMs: config.OUTAGE_HORIZON_MS,
    logger,
    storage: runOutputs(store, config.PUBLIC_BASE_URL),
    runners,
    blocklist: loadBlocklist(config),
    metrics,
  };
  const deliverDeps = {
    db,
    logger,
    secretsKey,
    metrics,
    urls: configuredOutputUrls(store, config),
    send: webhookSender({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS,
      caFile: config.WEBHOOK_CA_FILE,
    }),
  };

  const runs = new Worker(
    RUN_JOB.queue,
    register(RUN_JOB, (job, signal): Promise<ExecuteOutcome> => executeRun(executeDeps, job, signal)),
    {
      connection: redis,
      prefix,
      concurrency: config.WORKER_CONCURRENCY,
      lockDuration: config.RUN_LOCK_MS,
      stalledInterval: Math.max(250, Math.floor(config.RUN_LOCK_MS / 2)),
      maxStalledCount: 2,
    },
  );
  const deliveries = new Worker(
    DELIVERY_JOB.queue,
    register(DELIVERY_JOB, (job) => deliverWebhook(deliverDeps, job)),
    {
      connection: redis,
      prefix,
      concurrency: config.WEBHOOK_CONCURRENCY,
      settings: {
        backoffStrategy: (attemptsMade: number) => retryDelay(attemptsMade, config.WEBHOOK_BACKOFF_BASE_MS),
      },
    },
  );
  // Cancel-After: each deadline is a delayed job; a run that has ended by then is left alone.
  const deadlines = new Worker(
    DEADLINE_JOB.queue,
    register(DEADLINE_JOB, async (job) => (await runLifecycle.cancelAtDeadline(job.data.runId)).kind),
    { connection: redis, prefix, concurrency: 16 },
  );
  // The start estimate counts the run slots of the workers alive now.
  const stopHeartbeat = startWorkerHeartbeat(
    redis,
    prefix,
    randomUUID(),
    config.WORKER_CONCURRENCY,
    5_000,
    (error) => logger.warn("worker heartbeat failed", { error }),
  );
  for (const [name, worker] of [
    ["runs", runs],
    ["deliveries", deliveries],
    ["deadlines", deadlines],
  ] as const) {
    worker.on("error", (error) => logger.error(`${name} worker error`, { error }));
  }
  runs.on("failed", (job, error) => logger.warn("run job failed", { job_id: job?.id, error: error.message }));

  // A cancel reaches every worker; the one holding the run aborts its runner.
  const subscriber = redis.duplicate();
  subscriber.on("error", () => {});
  const [cancels, cogDone] = [CANCEL_CHANNEL.name(prefix), COG_DONE_CHANNEL.name(prefix)];
  await subscriber.subscribe(cancels, cogDone);
  subscriber.on("message", (channel: string, id: string) => {
    if (channel === cogDone && COG_DONE_CHANNEL.accepts(id)) {
      void cogResults.announced(id);
    } else if (channel === cancels && CANCEL_CHANNEL.accepts(id) && runs.cancelJob(id, "canceled")) {
      logger.info("run canceled while executing; runner aborted", { run_id: id });
    }
  });

  // Housekeeping on timers: a failed pass is logged and the next one tries again.
  const periodic = (what: string, task: () => Promise<unknown>) => async () => {
    try {
      await task();
    } catch (error) {
      logger.warn(`${what} failed`, { error });
    }
  };
  const sweep = async () => {
    await periodic("run sweep", () =>
      sweepRuns({
        db,
        runs: runLifecycle,
        queue: runsQueue,
        redis,
        prefix,
        logger,
        queuedAfterMs: config.SWEEP_QUEUED_AFTER_MS,
      }),
    )();
    await periodic("delivery sweep", () =>
      sweepDeliveries(db, deliveriesQueue, logger, config.SWEEP_QUEUED_AFTER_MS),
    )();
  };
  const sweeper = setInterval(sweep, config.SWEEP_INTERVAL_MS);
  void sweep();

  const expireOutputs = periodic("output expiry", async () => {
    const before = new Date(Date.now() - config.OUTPUT_RETENTION_DAYS * 86_400_000);
    const expired = await store.expire(before);
    if (expired)
      logger.info("outputs expired", { outputs: expired, retention_days: config.OUTPUT_RETENTION_DAYS });
  });
  const expiry =
    config.OUTPUT_RETENTION_DAYS > 0
      ? setInterval(expireOutputs, config.OUTPUT_EXPIRY_INTERVAL_MS)
      : undefined;

  logger.info("worker ready", { concurrency: config.WORKER_CONCURRENCY, queue_prefix: prefix });

  return {
    async close() {
      clearInterval(sweeper);
      clearInterval(expiry);
      cogServer?.close();
      metricsServer?.close();
      // Finish running jobs within the grace period. Past it, stop waiting: the process exits, the
      // jobs' locks expire, and BullMQ's stalled-job check hands them to another worker. (A later
      // close(true) would not help: BullMQ returns the pending graceful close.)
      let timer: NodeJS.Timeout | undefined;
      await stopHeartbeat();
      const graceful = Promise.all([runs.close(), deliveries.close(), deadlines.close()]).then(() => true);
      const expired = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), config.SHUTDOWN_GRACE_MS);
      });
      const finished = await Promise.race([graceful, expired]);
      clearTimeout(timer);
      if (!finished) {
        // Closing the connections would wait for the running jobs too; the caller exits instead.
        logger.warn("grace period over; leaving unfinished runs to other workers");
        return;
      }
      await Promise.all([runLifecycle.drain(), progress.drain()]);
      await Promise.allSettled([
        subscriber.quit(),
        runsQueue.close(),
        deliveriesQueue.close(),
        deadlinesQueue.close(),
        runners.close(),
      ]);
      store.close();
      await Promise.allSettled([redis.quit(), db.$disconnect()]);
    },
  };
}
