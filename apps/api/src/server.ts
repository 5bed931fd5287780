import { setMaxListeners } from "node:events";
import type { ApiConfig } from "@svc/config";
import { dbFromConfig } from "@svc/db";
import type { Logger } from "@svc/logger";
import { startTracing } from "@svc/telemetry";
import { createProducer, createRedis, createRunEventHub, queueIndex } from "@svc/queue";
import { wireRuns } from "@svc/use-cases";
import { guardedAgents } from "@svc/net";
import { configuredOutputUrls, createOutputStore, type OutputStore } from "@svc/storage";
import { queueDashboard } from "./admin/queueDashboard.js";
import { createApp } from "./app.js";
import type { FileDeps } from "@svc/use-cases";
import { routeSettings, type AppDeps } from "./deps.js";
import { createApiMetrics } from "./metrics.js";
import { accountSchedulingCache, modelCache } from "./cache/ttlCache.js";
import { heldConnections } from "./runs/heldConnections.js";
import { primeProcess } from "./prime.js";

export interface AssembledApi {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  /** Opens connections and compiles validators before serving (prime.ts); never fails. */
  prime(): Promise<void>;
  /** Starts draining: readiness fails, waiting requests answer now and event streams end. */
  drain(): void;
  /** Closes the queues, the dashboard and the pools (after the HTTP server has stopped). */
  close(): Promise<void>;
}

/**
 * The origin of signed output URLs, which the console's pages must allow media from: read off a
 * URL signed now (exact for every store), or, when no credentials are at hand yet, the endpoint.
 */
async function signedOrigin(store: OutputStore, config: ApiConfig, logger: Logger) {
  if (store.kind !== "s3") return undefined;
  try {
    return new URL(await store.signedUrl("origin", 60)).origin;
  } catch (error) {
    logger.warn("could not sign a URL at start-up; the console allows media from the endpoint", { error });
    const endpoint = config.S3_PUBLIC_ENDPOINT ?? config.S3_ENDPOINT;
    return endpoint
      ? new URL(endpoint).origin
      : `https://${config.S3_BUCKET}.s3.${config.S3_REGION}.amazonaws.com`;
  }
}

/**
 * The API process's parts, wired from its configuration: the one assembly used by entry.ts and by
 * the tests, so that what the tests exercise (the dashboard included) is what operators run.
 */
export async function assembleApi(
  config: ApiConfig,
  logger: Logger,
  poolSize = config.DATABASE_POOL_SIZE,
): Promise<AssembledApi> {
  const db = dbFromConfig(config, poolSize);
  const redis = createRedis(config, "producer");
  const queues = createProducer(redis, config.QUEUE_PREFIX);
  const dashboard = config.ADMIN_PASSWORD
    ? await queueDashboard(config, config.QUEUE_PREFIX, config.ADMIN_PASSWORD, redis)
    : undefined;
  const closing = new AbortController();
  // Every waiting request and open stream listens to it.
  setMaxListeners(0, closing.signal);
  const hub = createRunEventHub(redis, config.QUEUE_PREFIX, (error) =>
    logger.warn("run events subscription failed", { error }),
  );
  const store = createOutputStore(config);
  const urls = configuredOutputUrls(store, config);
  const held = heldConnections({
    redis,
    db,
    prefix: config.QUEUE_PREFIX,
    logger,
    limits: {
      perPrincipal: config.HELD_PER_KEY,
      perAccount: config.HELD_PER_ACCOUNT,
      perProcess: config.HELD_PER_PROCESS,
      // Revocation reaches open streams as soon as it reaches new requests (the key cache's TTL).
      checkEveryMs: Math.max(1_000, config.AUTH_CACHE_TTL_MS),
    },
  });
  const wired = wireRuns(config, { db, redis, logger, queues });
  const models = modelCache(db, config.CATALOGUE_CACHE_TTL_MS);
  const tracing = startTracing(config, "api");
  const files: FileDeps = {
    db,
    store,
    agents: guardedAgents(config.FILE_FETCH_CA_FILE),
    files: {
      maxBytes: config.FILE_MAX_BYTES,
      maxPixels: config.FILE_MAX_PIXELS,
      quotaBytes: { live: config.FILE_QUOTA_BYTES, test: config.FILE_QUOTA_BYTES_TEST },
      dataUrlMaxBytes: config.FILE_DATA_URL_MAX_BYTES,
      retentionHours: config.FILE_RETENTION_HOURS,
      fetchTimeoutMs: config.FILE_FETCH_TIMEOUT_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS,
      publicBaseUrl: config.PUBLIC_BASE_URL,
    },
  };
  const deps: AppDeps = {
    files,
    weights: { files, maxBytes: config.WEIGHTS_MAX_BYTES, perAccount: config.WEIGHTS_PER_ACCOUNT },
    settings: routeSettings(config),
    db,
    redis,
    logger,
    queues,
    runs: wired.lifecycle,
    scheduler: wired.scheduler,
    models,
    accountScheduling: accountSchedulingCache(db, config.AUTH_CACHE_TTL_MS),
    metrics: createApiMetrics(held),
    tracing,
    realtime: {
      hub,
      queue: queueIndex(redis, config.QUEUE_PREFIX, wired.scheduler, () => queues.runs().getActiveCount()),
      models,
      closing: closing.signal,
      heartbeatMs: config.EVENTS_HEARTBEAT_MS,
      urls,
      logger,
    },
    held,
    outputs: {
      store,
      urls,
      mediaOrigin: urls.signed ? await signedOrigin(store, config, logger) : undefined,
    },
    lifecycle: { draining: false },
    dashboard,
  };
  return {
    app: createApp(deps),
    deps,
    prime: () =>
      primeProcess(deps, Math.min(poolSize, config.GROUP_COMMIT_IN_FLIGHT + 2), config.READY_TIMEOUT_MS),
    drain() {
      deps.lifecycle.draining = true;
      closing.abort();
    },
    async close() {
      closing.abort();
      held.close();
      await Promise.allSettled([queues.close(), db.$disconnect(), dashboard?.close(), hub.close()]);
      store.close();
      if (redis.status === "ready") await redis.quit().catch(() => {});
      else redis.disconnect();
      await tracing.shutdown().catch(() => {});
    },
  };
}
