import type { RedisClient } from "@svc/queue";
import type { ApiConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { Producer, Scheduler } from "@svc/queue";
import type { OutputStore, OutputUrls } from "@svc/storage";
import type { Tracing } from "@svc/telemetry";
import type { FileDeps, RunLifecycle, WeightsDeps } from "@svc/use-cases";
import type { QueueDashboard } from "./admin/queueDashboard.js";
import type { Model } from "./cache/ttlCache.js";
import type { ApiMetrics } from "./metrics.js";
import type { HeldConnections } from "./runs/heldConnections.js";
import type { Realtime } from "./runs/realtime.js";

/**
 * The settings that request handling reads, by name: a handler reaches a setting by this one road
 * (the rest of the configuration is wired into the parts in server.ts: file limits into `files`,
 * caches, pools, the held-request caps). A setting a route needs is added here.
 */
export const ROUTE_SETTINGS = [
  "ACCOUNT_MAX_CONCURRENT_RUNS",
  "API_KEYS_PER_MODE_MAX",
  "AUTH_CACHE_TTL_MS",
  "AUTH_FAILURES_PER_MINUTE",
  "BATCH_DISCOUNT_PERCENT",
  "BODY_LIMIT_BYTES",
  "CONSOLE_DIR",
  "CONSOLE_SESSION_IDLE_MINUTES",
  "CONSOLE_SESSION_MAX_HOURS",
  "METRICS_TOKEN",
  "PUBLIC_BASE_URL",
  "QUEUE_PREFIX",
  "RATE_LIMIT_ENABLED",
  "RATE_LIMIT_PER_MINUTE",
  "RATE_LIMIT_RUNS_PER_MINUTE",
  "RATE_LIMIT_WINDOW_SECONDS",
  "READY_TIMEOUT_MS",
  "SECRETS_KEY",
  "SIGN_IN_ATTEMPTS_PER_ADDRESS",
  "SIGN_IN_ATTEMPTS_PER_EMAIL",
  "SYNC_WAIT_MAX_SECONDS",
  "TEST_RUNS_PER_DAY",
  "TRUST_PROXY",
  "WEBHOOK_ALLOW_PRIVATE_URLS",
  "WEBHOOK_ENDPOINTS_MAX",
] as const satisfies readonly (keyof ApiConfig)[];

export type RouteSettings = Pick<ApiConfig, (typeof ROUTE_SETTINGS)[number]>;

/** The route settings of a configuration. */
export const routeSettings = (config: ApiConfig): RouteSettings =>
  Object.fromEntries(ROUTE_SETTINGS.map((name) => [name, config[name]])) as RouteSettings;

/** Everything a request handler may touch, built once in entry.ts (or by a test). */
export interface AppDeps {
  settings: RouteSettings;
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
  /** Personal weights: the file deps, WEIGHTS_MAX_BYTES and WEIGHTS_PER_ACCOUNT. */
  weights: WeightsDeps;
  /** Set on SIGTERM: readiness fails and responses close their connections (see entry.ts). */
  lifecycle: { draining: boolean };
  /** The operators' queue dashboard, when ADMIN_PASSWORD is configured. */
  dashboard?: QueueDashboard;
}
