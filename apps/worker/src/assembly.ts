import { availableParallelism } from "node:os";
import { REPLICATE_PREFIX, fileFieldsOf, namesFiles, parseSecretsKey, traitsOf, ttlCache } from "@svc/core";
import { batchItemsByModel, findModel, runOutputBasis, sqlPool } from "@svc/db";
import {
  createDeadlinesQueue,
  createDeliveriesQueue,
  createLeasedRunsQueue,
  createRunsQueue,
  laneOf,
  type JobLane,
} from "@svc/queue";
import { createRunners, type ServerSlots } from "@svc/runners";
import { configuredOutputUrls, createOutputStore, runOutputs } from "@svc/storage";
import {
  contentPolicyOutcome,
  createProgressRecorder,
  readInputFile,
  readWeightsFile,
  runFileInputs,
  runLoraInputs,
  wireRuns,
} from "@svc/use-cases";
import { cogWebhookUrl } from "./cog/callbackServer.js";
import { cogProgressOutputs } from "./cog/progressOutputs.js";
import { redisCogResults } from "./cog/results.js";
import type { WorkerDeps } from "./deps.js";
import type { WorkerConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { RedisClient, Scheduler } from "@svc/queue";
import type { OutputStore } from "@svc/storage";
import type { Logger } from "@svc/logger";
import { createWorkerMetrics } from "./metrics.js";
import { loadBlocklist } from "./runs/contentPolicy.js";
import { startTracing } from "@svc/telemetry";
import { executeRun, type ExecuteDeps } from "./runs/executeRun.js";
import { localRuns } from "./runs/localRuns.js";
import { redisRunNotes } from "./runs/runNotes.js";
import { workerDispatcher } from "./scheduling/dispatcher.js";
import { webhookSender } from "./webhooks/sendWebhook.js";
import type { DeliverDeps } from "./webhooks/deliverWebhook.js";

export type AssembledWorker = ReturnType<typeof assembleWorker>;

/** The worker's metrics: its queues' depths, the pools and the batch lane (read at each scrape). */
const workerMetrics = (queues: ReturnType<typeof workerQueues>, scheduler: Scheduler, db: Db) =>
  createWorkerMetrics(
    Object.fromEntries(
      [queues.runs, queues.leased, queues.batchRuns, queues.batchLeased, queues.deliveries].map((q) => [
        q.name,
        q,
      ]),
    ),
    scheduler,
    () => batchItemsByModel(db),
  );

function workerQueues(redis: RedisClient, prefix: string) {
  return {
    runs: createRunsQueue(redis, prefix),
    leased: createLeasedRunsQueue(redis, prefix),
    batchRuns: createRunsQueue(redis, prefix, "batch"),
    batchLeased: createLeasedRunsQueue(redis, prefix, "batch"),
    deliveries: createDeliveriesQueue(redis, prefix),
    deadlines: createDeadlinesQueue(redis, prefix),
  };
}

/** Each lane's run queues (jobs.ts RUN_JOBS). */
const byLane = (queues: ReturnType<typeof workerQueues>) => ({
  runs: { interactive: queues.runs, batch: queues.batchRuns },
  leased: { interactive: queues.leased, batch: queues.batchLeased },
});

/** The lanes a worker executes (WORKER_LANES). */
export const workerLanes = (config: Pick<WorkerConfig, "WORKER_LANES">): Record<JobLane, boolean> => ({
  interactive: config.WORKER_LANES !== "batch",
  batch: config.WORKER_LANES !== "interactive",
});

/**
 * What the worker needs of a model (its runner settings and which input fields are files, cached
 * for CATALOGUE_CACHE_TTL_MS), and a run's file inputs as its runner gets them: signed URLs of our
 * store for a model server, ids (read from the store by inputFile) for a runner on this process's
 * threads.
 */
function modelLookups(db: Db, config: WorkerConfig, store: OutputStore, secretsKey: Buffer) {
  const modelOf = ttlCache(async (id) => {
    const model = await findModel(db, id);
    return model && { runner: model.runner, fileFields: fileFieldsOf(model.inputSchema) };
  }, config.CATALOGUE_CACHE_TTL_MS);
  const files = {
    db,
    store,
    secretsKey,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    ttlSeconds: config.FILE_URL_TTL_SECONDS,
  };
  return {
    modelOf,
    runnerOf: async (id: string) => (await modelOf(id))?.runner ?? null,
    fileInputs: async (modelId: string, input: Record<string, unknown>) => {
      const loras = Array.isArray(input.loras) && input.loras.length > 0;
      if (!loras && !namesFiles(input)) return input;
      const model = await modelOf(modelId);
      if (!model) return input;
      const traits = traitsOf(model.runner);
      const as = traits.files;
      const given = loras ? await runLoraInputs(files, input, traits.weights) : input;
      if (!given || !namesFiles(given) || !model.fileFields.length) return given;
      return runFileInputs(files, model.fileFields, given, as);
    },
  };
}

/** Every kind's runner, with this worker's render threads, its slots and Cog's callbacks (when set). */
function workerRunners(
  config: WorkerConfig,
  parts: {
    secretsKey: Buffer;
    slots: ServerSlots;
    redis: RedisClient;
    logger: Logger;
  },
  cogResults: ReturnType<typeof redisCogResults>,
  threads: number,
) {
  const callbackBase = config.COG_CALLBACK_URL;
  return createRunners({
    generatorThreads: threads,
    ffmpegPath: config.FFMPEG_PATH,
    secretsKey: parts.secretsKey,
    slots: parts.slots,
    notes: redisRunNotes(parts.redis, config.QUEUE_PREFIX),
    allowPrivateOutputs: config.WEBHOOK_ALLOW_PRIVATE_URLS,
    maxOutputBytes: config.OUTPUT_MAX_BYTES,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    log: (level, message, meta) => parts.logger[level](message, meta),
    ...(callbackBase && {
      callbacks: {
        results: cogResults,
        webhookUrl: (id: string) => cogWebhookUrl(callbackBase, parts.secretsKey, id),
      },
    }),
  });
}

/** How webhook deliveries are made: signed, sent with the address guard, outputs' URLs as clients see them. */
function deliveries(
  config: WorkerConfig,
  parts: Pick<DeliverDeps, "db" | "logger" | "tracing" | "secretsKey" | "metrics">,
  store: OutputStore,
): DeliverDeps {
  return {
    ...parts,
    urls: configuredOutputUrls(store, config),
    replicateBase: `${config.PUBLIC_BASE_URL.replace(/\/$/, "")}${REPLICATE_PREFIX}`,
    send: webhookSender({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS,
      caFile: config.WEBHOOK_CA_FILE,
    }),
  };
}

/**
 * The slot just freed here: the run given it starts on its server now (its input came with the
 * dispatch), not after a job hop and a start statement. Never for a blocked prompt; a run executed
 * elsewhere only when its work's result reaches any worker (Cog's webhook).
 */
async function beginOnServer(
  parts: {
    runnerOf: ReturnType<typeof modelLookups>["runnerOf"];
    runners: ReturnType<typeof createRunners>;
    blocklist: ReturnType<typeof loadBlocklist>;
    fileInputs: ReturnType<typeof modelLookups>["fileInputs"];
  },
  { runId, slot, pool, input }: { runId: string; slot: string; pool: string; input?: string },
  here: boolean,
): Promise<boolean> {
  if (input === undefined) return false;
  const settings = await parts.runnerOf(pool);
  const runner = settings && parts.runners.for(settings);
  if (!settings || !runner?.begin || traitsOf(settings).executesWhereLeased !== here) return false;
  const parsed = JSON.parse(input) as Record<string, unknown>;
  if (contentPolicyOutcome(parsed, parts.blocklist)) return false;
  // A file gone meanwhile: the job's start fails the run, charged nothing.
  const given = await parts.fileInputs(pool, parsed);
  return given ? runner.begin({ runId, input: given, settings, slot }) : false;
}

/** Outputs a Cog prediction reports while it runs, stored and recorded as the run's progress. */
function cogProgressOf(
  { config, db, logger }: Pick<WorkerDeps, "config" | "db" | "logger">,
  storage: ReturnType<typeof runOutputs>,
  record: ReturnType<typeof createProgressRecorder>["record"],
) {
  return cogProgressOutputs({
    storage,
    basisOf: (runId) => runOutputBasis(sqlPool(db), runId),
    record,
    limits: {
      allowPrivateOutputs: config.WEBHOOK_ALLOW_PRIVATE_URLS,
      maxOutputBytes: config.OUTPUT_MAX_BYTES,
      publicBaseUrl: config.PUBLIC_BASE_URL,
    },
    logger,
  });
}

/**
 * The worker process's parts, wired from its configuration (as assembleApi wires the API's): the
 * queues, the run lifecycle and scheduler (wired as the API wires them), the dispatcher, the
 * runners, the stores and what the processors are given. Nothing here starts work.
 */
export function assembleWorker({ config, db, redis, logger }: WorkerDeps) {
  const prefix = config.QUEUE_PREFIX;
  const queues = workerQueues(redis, prefix);
  const lanes = byLane(queues);
  const executes = workerLanes(config);
  const { lifecycle, transport, scheduler } = wireRuns(config, {
    db,
    redis,
    logger,
    queues: {
      runs: (lane = "interactive") => lanes.runs[lane],
      leased: (lane = "interactive") => lanes.leased[lane],
      deliveries: () => queues.deliveries,
      deadlines: () => queues.deadlines,
    },
    // Runs created here (batch items) that get a slot at once start here as those a release
    // leased do, without a job hop. (Called once the dispatcher exists: runs are made later.)
    launch: (dispatched) => dispatcher.launch(dispatched),
  });
  const secretsKey = parseSecretsKey(config.SECRETS_KEY);
  const store = createOutputStore(config);
  const { modelOf, runnerOf, fileInputs } = modelLookups(db, config, store, secretsKey);
  const blocklist = loadBlocklist(config);
  const metrics = workerMetrics(queues, scheduler, db);
  /** Stops the work begin() sent for a run that needs no execution (or did not get its slot). */
  const abandon = async (pool: string, runId: string, slot?: string) => {
    const settings = await runnerOf(pool);
    if (settings) await runners.for(settings).abandon?.({ runId, settings, slot });
  };
  const dispatcher = workerDispatcher({
    scheduler,
    leased: lanes.leased,
    logger,
    leaseMs: config.SCHEDULER_LEASE_MS,
    begin: (dispatched, here) =>
      beginOnServer({ runnerOf, runners, blocklist, fileInputs }, dispatched, here),
    here: {
      // A run of a lane this worker does not execute goes to its lane's queue, whoever leased it.
      wants: async ({ pool, batch }) => {
        if (!executes[laneOf(batch)]) return false;
        const settings = await runnerOf(pool);
        return local.accepting() && settings !== null && traitsOf(settings).executesWhereLeased;
      },
      launch: (dispatched, begun) => local.launch(dispatched, begun),
      accepting: () => local.accepting(),
    },
    withdraw: ({ runId, pool, slot }) => abandon(pool, runId, slot),
    stallMs: Math.floor(Math.min(config.SCHEDULER_LEASE_MS, config.RUN_LOCK_MS) / 4),
    patientWindowMs: config.GROUP_COMMIT_BATCH_WINDOW_MS,
    handedOver: (pool, seconds) => metrics.slotHandover.observe({ model: pool }, seconds),
  });
  const progress = createProgressRecorder({ db, recordEvents: transport.recordEvents, logger });
  const cogResults = redisCogResults(redis, prefix, config.COG_RESULT_POLL_MS);
  const threads = config.GENERATOR_THREADS || availableParallelism();
  // A worker renders at most as many runs at once as it executes: its share of a built-in pool.
  const renderSlots = Math.min(threads, config.WORKER_CONCURRENCY);
  const runners = workerRunners(
    config,
    // A runner frees the slot of a run executing here: once, whoever frees it first.
    { secretsKey, slots: { relocate: dispatcher.relocate, release: dispatcher.releaseHeld }, redis, logger },
    cogResults,
    threads,
  );
  const storage = runOutputs(store, config.PUBLIC_BASE_URL, secretsKey);
  const cogProgress = cogProgressOf({ config, db, logger }, storage, progress.record);
  const tracing = startTracing(config, "worker");
  // Runs ended here, for the batch feeder (housekeeping) to refill their places at once.
  const runEnds = { listener: undefined as ((modelId: string) => void) | undefined };
  const execute: ExecuteDeps = {
    // Forgets the run's Cog progress reports (a synchronous prediction sends no `completed`
    // webhook to forget them by) and refills its batch place.
    onFinished: ({ id, modelId }) => void (cogProgress.ended(id), runEnds.listener?.(modelId)),
    runs: lifecycle,
    tracing,
    progress,
    outageHorizonMs: config.OUTAGE_HORIZON_MS,
    logger,
    storage,
    runners,
    blocklist,
    fileInputs,
    inputFile: (id: string) => readInputFile({ db, store }, id),
    weights: (id: string) => readWeightsFile({ db, store }, id),
    fileFieldsOf: async (id: string) => (await modelOf(id))?.fileFields.map((f) => f.name) ?? [],
    slots: dispatcher,
    abandon,
    metrics,
  };
  const local = localRuns({
    leased: lanes.leased,
    execute: (job, lane, signal, begun) => executeRun(execute, job, lane, signal, begun),
    backstopMs: config.RUN_LOCK_MS,
    logger,
  });
  const deliver = deliveries(config, { db, logger, tracing, secretsKey, metrics }, store);
  return {
    queues,
    lanes,
    executes,
    lifecycle,
    scheduler,
    dispatcher,
    progress,
    cogProgress,
    secretsKey,
    cogResults,
    metrics,
    store,
    storage,
    runners,
    threads,
    renderSlots,
    execute,
    local,
    deliver,
    tracing,
    runEnds,
  };
}
