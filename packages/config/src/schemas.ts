import { z } from "zod";
import { bool, hostPorts, int, trustProxy, url } from "./parse.js";

const LOG_LEVELS = ["error", "warn", "info", "http", "debug", "silent"] as const;

/**
 * A variable's meaning, said once: docs/configuration.md and .env.example are generated from it
 * (`pnpm docs:config`). `example` is what .env.example shows for a variable without a default.
 */
export interface VariableDoc {
  description: string;
  example?: string;
}
const doc = <S extends z.ZodType>(schema: S, description: string, example?: string): S =>
  schema.meta({ description, ...(example !== undefined && { example }) });

// Shared by the API, the worker and the admin command line.
export const baseEnvSchema = z.object({
  NODE_ENV: doc(
    z.enum(["development", "production", "test"]).default("development"),
    "development | production | test.",
  ),
  LOG_LEVEL: doc(
    z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(", ")}` }).default("info"),
    "error | warn | info | http | debug | silent (http logs one line per request).",
  ),
  DATABASE_URL: doc(
    url(["postgres", "postgresql"]),
    "PostgreSQL connection (required). db:migrate creates the database if it does not exist.",
    "postgresql://postgres@127.0.0.1:5432/svc",
  ),
  DATABASE_POOL_SIZE: doc(int(1, 200).default(10), "Connections per process in the Postgres pool."),
  DATABASE_IDLE_TIMEOUT_MS: doc(
    int(0, 86_400_000).default(0),
    "How long a pooled Postgres connection may sit unused before the process closes it; 0 keeps every connection it opened (the API readies its statements on them at start-up, and a new connection must prepare and plan them again). Set it where idle connections must be given back: many replicas against a tight max_connections without a pooler.",
  ),
  DATABASE_POOLING: doc(
    z.enum(["session", "transaction"]).default("session"),
    "session: DATABASE_URL reaches Postgres itself or a pooler in session mode, and the hot path's statements are prepared once per connection. transaction: DATABASE_URL is a pooler in transaction mode (PgBouncer's pool_mode=transaction, most managed poolers), where a connection is not the same server session from one transaction to the next; statements are then sent unprepared. An API or worker whose connections turn out to share server sessions while this is session refuses to start, with a line naming this setting. See docs/operating.md \"Postgres behind a pooler\".",
  ),
  DATABASE_DIRECT_URL: doc(
    url(["postgres", "postgresql"]).optional(),
    "A direct (not pooled) PostgreSQL connection for db:migrate, which needs a session of its own (as Prisma's directUrl). Unset: DATABASE_URL.",
    "postgresql://postgres@127.0.0.1:5432/svc",
  ),
  API_KEYS_PER_MODE_MAX: doc(
    int(1, 10_000).default(20),
    "Active API keys an account may hold per mode (live, test), created in the console or with the CLI; past it, a key must be revoked first (409 KEY_LIMIT_REACHED).",
  ),
  REDIS_URL: doc(
    url(["redis", "rediss"]).default("redis://127.0.0.1:6379"),
    'One Redis (the job queues, run events, the scheduler), when neither REDIS_SENTINELS nor REDIS_CLUSTER_NODES is set: redis://[user:password@]host:port[/db], rediss:// for TLS. Use maxmemory-policy noeviction. See docs/operating.md "Redis: one node, Sentinel or Cluster".',
  ),
  REDIS_SENTINELS: doc(
    hostPorts.optional(),
    "Redis Sentinel: the sentinels, host:port comma-separated. The process asks them for the current master of REDIS_SENTINEL_NAME and follows failovers.",
    "10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379",
  ),
  REDIS_SENTINEL_NAME: doc(z.string().min(1).default("mymaster"), "Redis Sentinel: the master group's name."),
  REDIS_SENTINEL_PASSWORD: doc(
    z.string().min(1).optional(),
    "Redis Sentinel: the sentinels' own password (requirepass on the sentinels), when they have one.",
    "change-me",
  ),
  REDIS_CLUSTER_NODES: doc(
    hostPorts.optional(),
    "Redis Cluster: some of its nodes, host:port comma-separated (the rest are discovered). QUEUE_PREFIX must then hold a hash tag, such as {svc}.",
    "10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379",
  ),
  REDIS_USERNAME: doc(
    z.string().min(1).optional(),
    "The Redis nodes' ACL user (Sentinel and Cluster; with REDIS_URL it replaces the URL's).",
    "svc",
  ),
  REDIS_PASSWORD: doc(
    z.string().min(1).optional(),
    "The Redis nodes' password (Sentinel and Cluster; with REDIS_URL it replaces the URL's).",
    "change-me",
  ),
  REDIS_TLS: doc(
    bool.default(false),
    "TLS to the Redis nodes (and sentinels) in Sentinel and Cluster modes; REDIS_URL says it with rediss://. Certificates are always verified.",
  ),
  REDIS_TLS_CA_FILE: doc(
    z.string().min(1).optional(),
    "A CA bundle (PEM) to trust for Redis over TLS, added to the system roots.",
    "/etc/ssl/redis-ca.pem",
  ),
  REDIS_TLS_CERT_FILE: doc(
    z.string().min(1).optional(),
    "A client certificate (PEM) for Redis over TLS (mutual TLS), with REDIS_TLS_KEY_FILE.",
    "/etc/ssl/svc-redis.crt",
  ),
  REDIS_TLS_KEY_FILE: doc(
    z.string().min(1).optional(),
    "The client certificate's private key (PEM), with REDIS_TLS_CERT_FILE.",
    "/etc/ssl/svc-redis.key",
  ),
  QUEUE_PREFIX: doc(
    z
      .string()
      .regex(/^[A-Za-z0-9_:{}-]+$/, "expected letters, digits, _ : - { }")
      .default("svc"),
    "Prefix of every Redis key (BullMQ's and ours). On Redis Cluster it must hold a hash tag, such as {svc}, so that every key is in one slot (BullMQ's scripts and ours touch several at once).",
  ),
  PUBLIC_BASE_URL: doc(
    url(["http", "https"]).default("http://localhost:3000"),
    "Absolute base of the URLs the API hands out (output files). No trailing slash.",
  ),
  OUTPUT_STORAGE: doc(
    z.enum(["local", "s3"]).default("local"),
    'Where outputs are kept: local (files under OUTPUT_DIR, which the API and every worker must share) or s3 (an S3-compatible bucket; the API and the workers then share no directory). See docs/operating.md "Storage".',
  ),
  OUTPUT_DIR: doc(
    z.string().min(1).default("./var/outputs"),
    "Where local outputs are written (worker) and served from (API).",
  ),
  OUTPUT_URLS: doc(
    z.enum(["proxied", "signed"]).default("proxied"),
    "How clients get outputs: proxied (PUBLIC_BASE_URL/files/..., streamed by the API from the store) or signed (presigned URLs of the bucket, made afresh at every read; needs OUTPUT_STORAGE=s3).",
  ),
  OUTPUT_URL_TTL_SECONDS: doc(
    int(1, 604_800).default(3_600),
    "How long a signed output URL stays valid after the read that made it (at most 7 days).",
  ),
  S3_BUCKET: doc(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "expected a bucket name (3-63 of a-z 0-9 . -)")
      .optional(),
    "The bucket of outputs (required with OUTPUT_STORAGE=s3). Credentials come from the standard AWS chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, an instance role).",
    "model-run-outputs",
  ),
  S3_PREFIX: doc(
    z
      .string()
      .regex(/^([A-Za-z0-9!_.*'()-]+\/)*$/, "expected path segments each ending with / (or empty)")
      .default("outputs/"),
    "Put before every output's key in the bucket (outputs/<token>/<name>); empty for a bucket of its own.",
  ),
  S3_REGION: doc(z.string().min(1).default("us-east-1"), "The bucket's region."),
  S3_ENDPOINT: doc(
    url(["http", "https"]).optional(),
    "A store other than AWS S3 (MinIO, R2, GCS): its endpoint, as the API and the workers reach it.",
    "http://127.0.0.1:9000",
  ),
  S3_PUBLIC_ENDPOINT: doc(
    url(["http", "https"]).optional(),
    "The endpoint as clients reach it, when that differs from S3_ENDPOINT: signed URLs name it.",
    "https://files.example.com",
  ),
  S3_FORCE_PATH_STYLE: doc(
    bool.default(false),
    "Address the bucket in the path (endpoint/bucket/key) rather than the host name; MinIO needs it.",
  ),
});

/** Rules between variables, which a schema of single variables cannot say. */
export function crossRules(config: z.infer<typeof baseEnvSchema>, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (config.OUTPUT_STORAGE === "s3" && !config.S3_BUCKET)
    issue("S3_BUCKET", "required with OUTPUT_STORAGE=s3");
  if (config.OUTPUT_URLS === "signed" && config.OUTPUT_STORAGE !== "s3")
    issue("OUTPUT_URLS", "signed URLs need OUTPUT_STORAGE=s3");
  if (config.REDIS_SENTINELS && config.REDIS_CLUSTER_NODES)
    issue("REDIS_CLUSTER_NODES", "set REDIS_SENTINELS or REDIS_CLUSTER_NODES, not both");
  if (config.REDIS_CLUSTER_NODES && !/\{[^{}]+\}/.test(config.QUEUE_PREFIX))
    issue("QUEUE_PREFIX", `Redis Cluster needs a hash tag in the prefix, such as {${config.QUEUE_PREFIX}}`);
  if (!!config.REDIS_TLS_CERT_FILE !== !!config.REDIS_TLS_KEY_FILE)
    issue("REDIS_TLS_KEY_FILE", "REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE go together");
  const tls =
    config.REDIS_SENTINELS || config.REDIS_CLUSTER_NODES
      ? config.REDIS_TLS
      : config.REDIS_URL.startsWith("rediss:");
  if (!tls && (config.REDIS_TLS_CA_FILE || config.REDIS_TLS_CERT_FILE))
    issue(
      "REDIS_TLS_CA_FILE",
      "Redis TLS files need TLS: a rediss:// REDIS_URL, or REDIS_TLS=true with Sentinel or Cluster",
    );
}

// What the API and the worker need beyond the base (the CLI and the migration runner do not).
export const serviceEnvSchema = baseEnvSchema.extend({
  OTEL_EXPORTER_OTLP_ENDPOINT: doc(
    url(["http", "https"]).optional(),
    'Traces (OpenTelemetry): an OTLP/HTTP collector\'s base URL; spans go to <it>/v1/traces. Unset: no tracing, at no cost. See docs/operating.md "Traces".',
    "http://otel-collector:4318",
  ),
  OTEL_EXPORTER_OTLP_HEADERS: doc(
    z.string().optional(),
    "Headers sent with every export, key=value comma-separated (a collector's token).",
    "authorization=Bearer%20token",
  ),
  OTEL_SERVICE_NAME: doc(
    z.string().min(1).optional(),
    "The service name on the spans. Unset: model-run-api or model-run-worker.",
    "model-run-api",
  ),
  OTEL_TRACES_SAMPLER_ARG: doc(
    z.coerce.number({ error: "expected a number from 0 to 1" }).min(0).max(1).default(1),
    "Share of new traces kept (0 to 1); a request that arrives with a sampled W3C traceparent is always kept, and a run's later spans follow its request's choice.",
  ),
  OTEL_BSP_SCHEDULE_DELAY: doc(
    int(10, 60_000).default(5_000),
    "How long spans wait in the process to be exported together (ms).",
  ),
  ACCOUNT_MAX_CONCURRENT_RUNS: doc(
    int(1, 1_000_000).default(50),
    "Runs of one account executing at once on models with limited capacity (Cog servers, built-in renders; acme/echo is not counted); more stay QUEUED, never refused. Per account with `svc accounts set-limits --max-concurrent-runs`.",
  ),
  CATALOGUE_CACHE_TTL_MS: doc(
    int(0, 600_000).default(5_000),
    "How long a process caches the catalogue (run creation's models, the workers' model servers); catalogue edits, servers added or removed included, reach every replica within this.",
  ),
  SCHEDULER_LEASE_MS: doc(
    int(1_000, 3_600_000).default(60_000),
    "A slot leased for a run (a place on a model server) is given back this long after the worker holding it stopped renewing it (a crash). Keep it above RUN_LOCK_MS, so that the worker that takes the run over finds its lease.",
  ),
  SECRETS_KEY: doc(
    z
      .string({ error: "required: 32 random bytes in base64 (e.g. `openssl rand -base64 32`)" })
      .refine(
        (v) => Buffer.from(v, "base64").length === 32,
        "expected 32 bytes in base64 (e.g. `openssl rand -base64 32`)",
      ),
    "Required: 32 random bytes in base64 (openssl rand -base64 32). It encrypts webhook signing secrets at rest (AES-256-GCM); keep it stable and the same on every process (scripts/start.sh makes one in var/).",
    "",
  ),
  WEBHOOK_ALLOW_PRIVATE_URLS: doc(
    bool.default(false),
    "Let webhooks, file inputs given as URLs, and model output downloads from hosts other than the model's own servers, reach loopback, private and link-local addresses (local development and tests only).",
  ),
  FILE_MAX_BYTES: doc(
    int(1_024, 10 * 1024 * 1024 * 1024).default(100 * 1024 * 1024),
    "The largest input file: an upload (POST /files; 413 before it is read past this) or a file fetched from a URL given as a run's input.",
  ),
  FILE_QUOTA_BYTES: doc(
    int(0, 1024 * 1024 * 1024 * 1024).default(10 * 1024 * 1024 * 1024),
    "The input files one account may hold at once with its live keys (bytes of files not deleted or expired): past it an upload is 413 FILE_QUOTA_EXCEEDED, and a run whose file input would pass it is 400 naming the field. Delete files (DELETE /files/{id}) or let them expire to make room.",
  ),
  FILE_QUOTA_BYTES_TEST: doc(
    int(0, 1024 * 1024 * 1024 * 1024).default(512 * 1024 * 1024),
    "FILE_QUOTA_BYTES for an account's test keys (their files are test files, counted apart): far fewer, since test runs are free.",
  ),
  FILE_RETENTION_HOURS: doc(
    int(1, 87_600).default(24),
    "How long an input file (uploaded, or fetched for a run) is kept; past it the file is deleted, and a queued run that names it fails with INPUT_FILE_UNAVAILABLE, charged nothing.",
  ),
  FILE_DATA_URL_MAX_BYTES: doc(
    int(0, 100 * 1024 * 1024).default(256 * 1024),
    "The largest file a run's input may carry as a data URL (decoded bytes); larger files are uploaded or given as URLs. The request body limit applies as well.",
  ),
  FILE_FETCH_TIMEOUT_MS: doc(
    int(100, 600_000).default(15_000),
    "How long the API waits for a file input's URL (connection, answer and body) before the run is refused with 400.",
  ),
  FILE_FETCH_CA_FILE: doc(
    z.string().optional(),
    "An extra CA bundle (PEM) to trust for file input URLs, added to the system roots; TLS is always verified.",
    "/etc/ssl/private-ca.pem",
  ),
  FILE_MAX_PIXELS: doc(
    int(1, 1_000_000_000).default(36_000_000),
    "The largest image (width x height, read from its header before anything decodes it) an upload or a file input may be; a model may set a smaller limit per field (x-max-pixels).",
  ),
  FILE_URL_TTL_SECONDS: doc(
    int(10, 604_800).default(900),
    "How long the signed URL a model server is given for an input file stays valid.",
  ),
  GROUP_COMMIT_WINDOW_MS: doc(
    int(0, 100).default(0),
    "Group commit of run transitions (creations, starts, settlements): how long the first run of a batch waits for company (0: only for the requests already read). See docs/architecture.md.",
  ),
  GROUP_COMMIT_SETTLE_WINDOW_MS: doc(
    int(0, 100).default(3),
    "The same for settlements alone (a run's end): waiting a few milliseconds for company makes fewer, larger settlement statements, so the account row they lock and the WAL they flush are shared with run creations less often (a creation's latency under load halves at 3 ms). Adds at most this much to a run's end.",
  ),
  GROUP_COMMIT_MAX_BATCH: doc(int(1, 1000).default(200), "The most runs one group-commit batch holds."),
  GROUP_COMMIT_IN_FLIGHT: doc(
    int(1, 100).default(2),
    "How many group-commit batches of one kind may be in the database at once.",
  ),
  RUN_EVENTS_RETENTION_SECONDS: doc(
    int(1, 86_400).default(120),
    "How long a run's events (what GET /runs/{id}/events resumes from after a reconnect) are kept once the run has ended; past it, the stream of an ended run gives its final state alone.",
  ),
});

export const apiEnvSchema = serviceEnvSchema.extend({
  HOST: doc(z.string().min(1).default("0.0.0.0"), "Address the API listens on."),
  PORT: doc(int(0, 65535).default(3000), "Port the API listens on."),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: doc(
    int(1_000, 600_000).default(65_000),
    "How long the API keeps an idle client connection open. Keep it longer than the idle timeout of any load balancer in front (AWS ALB: 60 s), so that the balancer, not the API, closes idle connections: otherwise it may send a request on a connection the API is closing, and answer 502.",
  ),
  BODY_LIMIT_BYTES: doc(
    int(1024, 100 * 1024 * 1024).default(1024 * 1024),
    "Largest accepted request body in bytes (413 above it).",
  ),
  AUTH_CACHE_TTL_MS: doc(
    int(0, 600_000).default(5_000),
    "How long a verified API key is cached per process; a revoked key stops working within this.",
  ),
  TRUST_PROXY: doc(
    trustProxy.default(false),
    "Which reverse proxies' X-Forwarded-For to believe for the client's address (per-address limits, logs): false (none: the peer is the client), the number of proxies in front (1 for one load balancer: its hop alone), or their addresses (IPs, CIDRs, loopback, linklocal, uniquelocal, comma-separated). true is refused: it would let any client choose its own address.",
  ),
  READY_TIMEOUT_MS: doc(int(50, 60_000).default(2_000), "Deadline of each dependency check of /readyz."),
  SHUTDOWN_GRACE_MS: doc(
    int(0, 600_000).default(10_000),
    "On SIGTERM, how long in-flight work may take: the API's requests, or the worker's runs (after which unfinished runs are left to another worker).",
  ),
  SHUTDOWN_DRAIN_MS: doc(
    int(0, 600_000).default(1_000),
    "After SIGTERM, how long the API keeps serving (readiness failing, connections closing after each response) before it stops accepting; part of the grace period.",
  ),
  ADMIN_PASSWORD: doc(
    z.string().min(16, "expected at least 16 characters").optional(),
    'The operators\' queue dashboard (bull-board) at /admin/queues, HTTP Basic user "admin" with this password (16+ characters). Unset: no dashboard.',
    "",
  ),
  METRICS_TOKEN: doc(
    z.string().min(16, "expected at least 16 characters").optional(),
    "GET /metrics (Prometheus) on the API port: when set, scrapes need `Authorization: Bearer <token>` (16+ characters).",
    "",
  ),
  RATE_LIMIT_ENABLED: doc(
    bool.default(true),
    "Rate limits, counted in Redis and shared by all API replicas: per key, per client address for failed authentications and console sign-ins.",
  ),
  RATE_LIMIT_PER_MINUTE: doc(
    int(1, 10_000_000).default(600),
    "Requests per API key per window (429 RATE_LIMITED with Retry-After and RateLimit-* headers above it).",
  ),
  RATE_LIMIT_RUNS_PER_MINUTE: doc(int(1, 10_000_000).default(120), "Run creations per API key per window."),
  RATE_LIMIT_WINDOW_SECONDS: doc(
    int(1, 3_600).default(60),
    "Length of a rate-limit window in seconds (60: the limits above are per minute).",
  ),
  TEST_RUNS_PER_DAY: doc(
    int(0, 10_000_000).default(200),
    "Test-mode runs of models that cost compute (every model but acme/echo) an account may start per 24 hours, across all of its test keys; past it, 429 TEST_RUN_QUOTA_EXCEEDED with Retry-After. Test runs are free, so this bounds what test keys can take. Counted in Redis for all API replicas; not switched off by RATE_LIMIT_ENABLED.",
  ),
  HELD_PER_KEY: doc(
    int(1, 1_000_000).default(100),
    "Event streams and waiting requests (Prefer: wait) one API key, or one console session, may hold at once across all API replicas; past it, 429 RATE_LIMITED with Retry-After (a creation's Prefer: wait is then not honoured: it answers at once).",
  ),
  HELD_PER_ACCOUNT: doc(
    int(1, 1_000_000).default(300),
    "Event streams and waiting requests one account may hold at once, all keys and sessions together, across all API replicas.",
  ),
  HELD_PER_PROCESS: doc(
    int(1, 1_000_000).default(1_000),
    "Event streams and waiting requests one API process holds at most, so that it keeps answering everything else (health checks included).",
  ),
  SYNC_WAIT_MAX_SECONDS: doc(
    int(1, 3_600).default(300),
    "How long a synchronous call of the Replicate- or OpenAI-style APIs (an image generation, a speech, a video's content) waits for its run; past it, or when the client leaves first, the run is canceled (charged what it delivered) and the call answers 504 (WAIT_TIMEOUT).",
  ),
  AUTH_FAILURES_PER_MINUTE: doc(
    int(1, 1_000_000).default(30),
    "Failed authentications per client address per minute; past it the address gets 429 before its keys are looked up.",
  ),
  WEBHOOK_ENDPOINTS_MAX: doc(
    int(1, 10_000).default(20),
    "Webhook endpoints an account may have per mode (live, test); creating one more is a 400.",
  ),
  CONSOLE_DIR: doc(
    z.string().min(1).optional(),
    "Directory of the built web console served at /console (unset: apps/web/dist of this checkout).",
    "",
  ),
  CONSOLE_SESSION_IDLE_MINUTES: doc(
    int(1, 43_200).default(120),
    "A console session ends after this many idle minutes.",
  ),
  CONSOLE_SESSION_MAX_HOURS: doc(
    int(1, 8_760).default(24),
    "A console session ends this many hours after sign-in at most.",
  ),
  SIGN_IN_ATTEMPTS_PER_EMAIL: doc(
    int(1, 1_000_000).default(10),
    "Console sign-in attempts per 15 minutes for one email from anywhere; past it the email is not locked, but each address may try it once a minute (429 with Retry-After otherwise), so its owner waits a minute at most.",
  ),
  SIGN_IN_ATTEMPTS_PER_ADDRESS: doc(
    int(1, 1_000_000).default(50),
    "Console sign-in attempts per 15 minutes from one client address.",
  ),
  EVENTS_HEARTBEAT_MS: doc(
    int(100, 300_000).default(15_000),
    "Run event streams send a heartbeat comment this often, so that proxies keep idle streams open, and re-read the run's stored state in case an event was lost.",
  ),
});

export const workerEnvSchema = serviceEnvSchema.extend({
  WORKER_CONCURRENCY: doc(
    int(1, 1000).default(400),
    "Runs executed at once by one worker process (model servers, waits and settlements overlap).",
  ),
  GENERATOR_THREADS: doc(
    int(0, 256).default(0),
    "Worker threads for the built-in generators' CPU work (0: one per core); the event loop stays free.",
  ),
  SHUTDOWN_GRACE_MS: doc(
    int(0, 3_600_000).default(30_000),
    "On SIGTERM, how long in-flight work may take: the API's requests, or the worker's runs (after which unfinished runs are left to another worker).",
  ),
  POOL_MONITOR_INTERVAL_MS: doc(
    int(50, 60_000).default(500),
    "How often a worker looks at the models' capacity pools (servers' health checks happen once per server per its health_interval_ms across all workers; render threads follow the live workers) and gives back leases whose worker died.",
  ),
  RUN_LOCK_MS: doc(
    int(500, 600_000).default(30_000),
    "A run whose worker stops renewing its lock for this long is handed to another worker. Keep it equal on every worker.",
  ),
  OUTAGE_HORIZON_MS: doc(
    int(1_000, 86_400_000).default(900_000),
    "While Postgres or Redis is unreachable, a run's start and a finished run's settlement are retried (backoff up to 2 s) for this long before the attempt counts as failed.",
  ),
  SWEEP_INTERVAL_MS: doc(
    int(100, 3_600_000).default(10_000),
    "How often the sweeper re-enqueues lost QUEUED runs and fails runs past their deadline.",
  ),
  OUTPUT_RETENTION_DAYS: doc(
    int(0, 36_500).default(30),
    "Output files older than this many days are deleted, locally or in the bucket (their URLs then answer 410 Gone); 0 keeps them forever (or leaves it to a bucket lifecycle rule).",
  ),
  OUTPUT_EXPIRY_INTERVAL_MS: doc(
    int(100, 86_400_000).default(3_600_000),
    "How often each worker looks for outputs past OUTPUT_RETENTION_DAYS.",
  ),
  OUTPUT_MAX_BYTES: doc(
    int(1_024, 1_099_511_627_776).default(512 * 1024 * 1024),
    "The largest output file a model may return: Cog outputs are streamed into the store and cut off past it (the run then fails with MODEL_ERROR).",
  ),
  FFMPEG_PATH: doc(
    z.string().min(1).optional(),
    "The ffmpeg that encodes the built-in generators' MP4 video and MP3 audio (unset: the binary of the @ffmpeg-installer npm package, installed with the worker).",
    "/usr/bin/ffmpeg",
  ),
  SWEEP_QUEUED_AFTER_MS: doc(
    int(0, 3_600_000).default(30_000),
    "A QUEUED run older than this with no job in Redis is enqueued again.",
  ),
  CONTENT_POLICY_BLOCKLIST: doc(
    z.string().default(""),
    "Content policy: comma-separated blocked words or phrases (a run whose prompt has one fails with CONTENT_POLICY).",
  ),
  CONTENT_POLICY_FILE: doc(
    z.string().optional(),
    "Content policy: a file of blocked words or phrases, one per line.",
    "./content-policy.txt",
  ),
  WEBHOOK_CONCURRENCY: doc(int(1, 1000).default(64), "Webhook deliveries sent at once by one worker."),
  WEBHOOK_TIMEOUT_MS: doc(int(100, 120_000).default(10_000), "Time-out of one delivery attempt."),
  WEBHOOK_BACKOFF_BASE_MS: doc(
    int(1, 3_600_000).default(30_000),
    "Delay before a delivery's first retry, then doubling (30 s, 60 s, 120 s, ...).",
  ),
  WEBHOOK_CA_FILE: doc(
    z.string().optional(),
    "An extra CA bundle (PEM) to trust for webhook receivers, added to the system roots; TLS is always verified.",
    "/etc/ssl/private-ca.pem",
  ),
  COG_CALLBACK_URL: doc(
    url(["http", "https"]).optional(),
    "Cog model servers (docs/serving-models.md): the URL at which they reach this worker's callback server. Unset: Cog models cannot run here.",
    "http://worker-1.internal:3100",
  ),
  COG_CALLBACK_HOST: doc(z.string().min(1).default("0.0.0.0"), "Address the Cog callback server listens on."),
  COG_CALLBACK_PORT: doc(int(0, 65535).default(3100), "Port the Cog callback server listens on."),
  COG_RESULT_POLL_MS: doc(
    int(50, 60_000).default(1_000),
    "How often a worker waiting for a Cog prediction reads its stored result, in case the announcement on pub/sub was missed.",
  ),
  METRICS_HOST: doc(
    z.string().min(1).default("0.0.0.0"),
    "Address of the worker's Prometheus metrics server.",
  ),
  METRICS_PORT: doc(
    int(0, 65535).default(9464),
    "Port of the worker's Prometheus metrics server, GET /metrics (0: no metrics server).",
  ),
});

export type BaseConfig = z.infer<typeof baseEnvSchema>;
export type ApiConfig = z.infer<typeof apiEnvSchema>;
export type WorkerConfig = z.infer<typeof workerEnvSchema>;
