import { z } from "zod";
import { bool, int, url } from "./parse.js";

const LOG_LEVELS = ["error", "warn", "info", "http", "debug", "silent"] as const;

// Shared by the API, the worker and the admin command line.
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(", ")}` }).default("info"),
  DATABASE_URL: url(["postgres", "postgresql"]),
  DATABASE_POOL_SIZE: int(1, 200).default(10),
  REDIS_URL: url(["redis", "rediss"]).default("redis://127.0.0.1:6379"),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:{}-]+$/, "expected letters, digits, _ : - { }")
    .default("svc"),
  PUBLIC_BASE_URL: url(["http", "https"]).default("http://localhost:3000"),
  // Where outputs are kept: `local` (files under OUTPUT_DIR, which the API and every worker must
  // share) or `s3` (an S3-compatible bucket; the API and the workers then share no directory).
  OUTPUT_STORAGE: z.enum(["local", "s3"]).default("local"),
  OUTPUT_DIR: z.string().min(1).default("./var/outputs"),
  // How clients get outputs: `proxied` (PUBLIC_BASE_URL/files/..., streamed by the API from the
  // store) or `signed` (presigned URLs of the bucket, made afresh at every read and valid for
  // OUTPUT_URL_TTL_SECONDS; needs OUTPUT_STORAGE=s3).
  OUTPUT_URLS: z.enum(["proxied", "signed"]).default("proxied"),
  OUTPUT_URL_TTL_SECONDS: int(1, 604_800).default(3_600),
  // The bucket (OUTPUT_STORAGE=s3) and the prefix of every key in it. Credentials come from the
  // standard AWS chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, an instance role).
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "expected a bucket name (3-63 of a-z 0-9 . -)")
    .optional(),
  S3_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9!_.*'()-]+\/)*$/, "expected path segments each ending with / (or empty)")
    .default("outputs/"),
  S3_REGION: z.string().min(1).default("us-east-1"),
  // Another store than AWS S3 (MinIO, R2, GCS): its endpoint, as this host reaches it, and, when
  // clients reach it at another address, that one (signed URLs name it). MinIO needs path style.
  S3_ENDPOINT: url(["http", "https"]).optional(),
  S3_PUBLIC_ENDPOINT: url(["http", "https"]).optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
});

/** Rules between variables, which a schema of single variables cannot say. */
export function storageRules(config: z.infer<typeof baseEnvSchema>, ctx: z.RefinementCtx): void {
  if (config.OUTPUT_STORAGE === "s3" && !config.S3_BUCKET)
    ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "required with OUTPUT_STORAGE=s3" });
  if (config.OUTPUT_URLS === "signed" && config.OUTPUT_STORAGE !== "s3")
    ctx.addIssue({
      code: "custom",
      path: ["OUTPUT_URLS"],
      message: "signed URLs need OUTPUT_STORAGE=s3",
    });
}

// What the API and the worker need beyond the base (the CLI and the migration runner do not).
export const serviceEnvSchema = baseEnvSchema.extend({
  // 32 random bytes, base64: encrypts webhook signing secrets at rest (AES-256-GCM).
  SECRETS_KEY: z
    .string({ error: "required: 32 random bytes in base64 (e.g. `openssl rand -base64 32`)" })
    .refine(
      (v) => Buffer.from(v, "base64").length === 32,
      "expected 32 bytes in base64 (e.g. `openssl rand -base64 32`)",
    ),
  // Lets webhooks, and model output downloads from hosts other than the model's own servers,
  // reach loopback/private addresses: local development and tests only.
  WEBHOOK_ALLOW_PRIVATE_URLS: bool.default(false),
  // Group commit of run transitions (creation, start, settlement): how long the first run of a
  // batch waits for company (0: only for the requests already read), the largest batch, and how
  // many batches of one kind may be in the database at once.
  GROUP_COMMIT_WINDOW_MS: int(0, 100).default(0),
  GROUP_COMMIT_MAX_BATCH: int(1, 1000).default(200),
  GROUP_COMMIT_IN_FLIGHT: int(1, 100).default(2),
  // How long a run's events (what GET /runs/{id}/events resumes from) are kept after it has
  // ended; past it, the stream of an ended run gives its final state alone.
  RUN_EVENTS_RETENTION_SECONDS: int(1, 86_400).default(120),
});

export const apiEnvSchema = serviceEnvSchema.extend({
  HOST: z.string().min(1).default("0.0.0.0"),
  PORT: int(0, 65535).default(3000),
  BODY_LIMIT_BYTES: int(1024, 100 * 1024 * 1024).default(1024 * 1024),
  AUTH_CACHE_TTL_MS: int(0, 600_000).default(5_000),
  CATALOGUE_CACHE_TTL_MS: int(0, 600_000).default(5_000),
  TRUST_PROXY: bool.default(false),
  READY_TIMEOUT_MS: int(50, 60_000).default(2_000),
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
  // After SIGTERM, how long the API keeps serving with readiness failing and connections closing
  // after each response, before it stops accepting (part of the grace period).
  SHUTDOWN_DRAIN_MS: int(0, 600_000).default(1_000),
  // The operators' queue dashboard at /admin/queues (user "admin"); unset: no dashboard.
  ADMIN_PASSWORD: z.string().min(16, "expected at least 16 characters").optional(),
  // Per API key, shared by all API replicas through Redis: requests and run creations per minute.
  // When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`.
  METRICS_TOKEN: z.string().min(16, "expected at least 16 characters").optional(),
  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_PER_MINUTE: int(1, 10_000_000).default(600),
  RATE_LIMIT_RUNS_PER_MINUTE: int(1, 10_000_000).default(120),
  // Length of a rate-limit window in seconds (the limits above are per window; 60 = per minute).
  RATE_LIMIT_WINDOW_SECONDS: int(1, 3_600).default(60),
  // Failed authentications per client address per minute before it gets 429 (with RATE_LIMIT_ENABLED).
  AUTH_FAILURES_PER_MINUTE: int(1, 1_000_000).default(30),
  // Webhook endpoints an account may have per mode.
  WEBHOOK_ENDPOINTS_MAX: int(1, 10_000).default(20),
  // The web console at /console: where its built files are (default: apps/web/dist of this
  // checkout), and how long a sign-in lasts (idle minutes, absolute hours).
  CONSOLE_DIR: z.string().min(1).optional(),
  CONSOLE_SESSION_IDLE_MINUTES: int(1, 43_200).default(120),
  CONSOLE_SESSION_MAX_HOURS: int(1, 8_760).default(24),
  // Console sign-in attempts allowed per 15 minutes for one email and for one client address
  // (with RATE_LIMIT_ENABLED; shared by the replicas through Redis).
  SIGN_IN_ATTEMPTS_PER_EMAIL: int(1, 1_000_000).default(10),
  SIGN_IN_ATTEMPTS_PER_ADDRESS: int(1, 1_000_000).default(50),
  // Run event streams: a heartbeat comment this often (proxies close idle connections), when the
  // stream also re-reads the run's stored state in case an event was lost.
  EVENTS_HEARTBEAT_MS: int(100, 300_000).default(15_000),
});

export const workerEnvSchema = serviceEnvSchema.extend({
  // Runs executed at once by one worker process. The built-in generators' CPU work runs on
  // GENERATOR_THREADS worker threads (0: one per core), so high concurrency keeps pick-up fast.
  WORKER_CONCURRENCY: int(1, 1000).default(200),
  GENERATOR_THREADS: int(0, 256).default(0),
  SHUTDOWN_GRACE_MS: int(0, 3_600_000).default(30_000),
  // A job whose worker stops renewing its lock for this long is handed to another worker.
  RUN_LOCK_MS: int(500, 600_000).default(30_000),
  // While Postgres or Redis is unreachable, a run's start and the settlement of a finished run
  // are retried (backoff up to 2 s) for this long before the attempt counts as failed.
  OUTAGE_HORIZON_MS: int(1_000, 86_400_000).default(900_000),
  // How often the sweeper re-enqueues lost QUEUED runs and fails runs past their deadline.
  SWEEP_INTERVAL_MS: int(100, 3_600_000).default(10_000),
  // Output files older than this many days are deleted, locally or in the bucket (their URLs then
  // answer 410 Gone); 0 keeps them forever. Checked every OUTPUT_EXPIRY_INTERVAL_MS by each worker.
  OUTPUT_RETENTION_DAYS: int(0, 36_500).default(30),
  OUTPUT_EXPIRY_INTERVAL_MS: int(100, 86_400_000).default(3_600_000),
  // The largest output file a model may return (Cog outputs are streamed and cut off past it).
  OUTPUT_MAX_BYTES: int(1_024, 1_099_511_627_776).default(512 * 1024 * 1024),
  // The ffmpeg of the built-in video (MP4) and audio (MP3) generators; unset: the npm-installed one.
  FFMPEG_PATH: z.string().min(1).optional(),
  // A QUEUED run older than this with no job in Redis is enqueued again.
  SWEEP_QUEUED_AFTER_MS: int(0, 3_600_000).default(30_000),
  // Content policy: comma-separated blocked words or phrases, and/or a file with one per line.
  CONTENT_POLICY_BLOCKLIST: z.string().default(""),
  CONTENT_POLICY_FILE: z.string().optional(),
  // Webhook deliveries: parallel deliveries per worker, per-attempt time-out, first retry delay
  // (then doubling), and an extra CA bundle to trust (PEM file; TLS is always verified).
  WEBHOOK_CONCURRENCY: int(1, 1000).default(64),
  WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(10_000),
  WEBHOOK_BACKOFF_BASE_MS: int(1, 3_600_000).default(30_000),
  WEBHOOK_CA_FILE: z.string().optional(),
  // Cog models: the URL at which Cog servers reach this worker's callback server (their
  // predictions' webhook), and where that server listens. Unset: Cog models cannot run here.
  COG_CALLBACK_URL: url(["http", "https"]).optional(),
  COG_CALLBACK_HOST: z.string().min(1).default("0.0.0.0"),
  COG_CALLBACK_PORT: int(0, 65535).default(3100),
  // How often a worker waiting for a Cog prediction reads its stored result, in case the
  // announcement on pub/sub was missed.
  COG_RESULT_POLL_MS: int(50, 60_000).default(1_000),
  // Prometheus metrics of the worker: GET /metrics on this port (0 disables the server).
  METRICS_HOST: z.string().min(1).default("0.0.0.0"),
  METRICS_PORT: int(0, 65535).default(9464),
});

export type BaseConfig = z.infer<typeof baseEnvSchema>;
export type ApiConfig = z.infer<typeof apiEnvSchema>;
export type WorkerConfig = z.infer<typeof workerEnvSchema>;
