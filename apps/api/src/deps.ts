import type { RedisClient } from "@svc/queue";
import type { ApiConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { Producer, Scheduler } from "@svc/queue";
import type { OutputStore, OutputUrls } from "@svc/storage";
import type { Tracing } from "@svc/telemetry";
import type { FileDeps, RunLifecycle } from "@svc/use-cases";
import type { QueueDashboard } from "./admin/queueDashboard.js";
import type { Model } from "./cache/ttlCache.js";
import type { ApiMetrics } from "./metrics.js";
import type { HeldConnections } from "./runs/heldConnections.js";
import type { Realtime } from "./runs/realtime.js";

/** Everything a request handler may touch, built once in main.ts (or by a test). */
export interface AppDeps {
  config: ApiConfig;
  db: Db;
  redis: RedisClient;
  logger: Logger;
  queues: Producer;
  /** Run creation and cancel: the use-cases the worker shares (group-committed). */
  runs: RunLifecycle;
  /** Runs waiting for models' capacity (their queue caps, places and figures). */
  scheduler: Scheduler;
  /** Models by id, cached for CATALOGUE_CACHE_TTL_MS. */
  models: (id: string) => Promise<Model | null>;
  /** An account's weight and concurrency limit for new runs, cached for AUTH_CACHE_TTL_MS. */
  accountScheduling: (accountId: string) => Promise<{ weight: number; maxConcurrentRuns: number | null }>;
  metrics: ApiMetrics;
  /** Traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (a span per request, kept on the runs it makes). */
  tracing: Tracing;
  /** Runs' events for waiting requests and streams, and the queue's index. */
  realtime: Realtime;
  /** What streams and waiting requests hold, capped per key or session, account and process. */
  held: HeldConnections;
  /** Where outputs are (served at /files), how their URLs are shown, and, when signed URLs point
   * elsewhere, the origin the console must allow its media from. */
  outputs: { store: OutputStore; urls: OutputUrls; mediaOrigin?: string };
  /** Input files: where they are stored, how URLs given as inputs are fetched, the limits. */
  files: FileDeps;
  /** Set on SIGTERM: readiness fails and responses close their connections (see main.ts). */
  lifecycle: { draining: boolean };
  /** The operators' queue dashboard, when ADMIN_PASSWORD is configured. */
  dashboard?: QueueDashboard;
}
