// The settings every process reads (base), and those of the API and the worker alike (service).
import { z } from "zod";
import { bool, hostPorts, int, url } from "../parse.js";
import { doc, LOG_LEVELS } from "./doc.js";

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
    "Where local outputs are written (worker) and served from (API); a relative path is taken from the working directory of each process.",
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
  WEIGHTS_ROUTING_WAIT_MS: doc(
    int(-1, 600_000).default(2_000),
    "Warm routing of runs with LoRAs: when a place on a model server frees, an account's run whose weights that server has loaded may go before the account's older runs, but the oldest is passed over so for at most this long (ms). -1 turns warm routing off (each account's runs go oldest first). Fairness between accounts is unchanged either way.",
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
  GROUP_COMMIT_BATCH_WINDOW_MS: doc(
    int(0, 100).default(20),
    "The same for a batch item's start when its work is on its model server already (a synchronous Cog prediction, an OpenAI-style request, a ComfyUI prompt, sent as the place was leased), for its settlement once its place is free, and for the worker's release of a place whose next batch item is on its way to the server already: nothing waits for them, so a busy batch's items share statements and Redis calls instead of one each. The item's started_at may trail the moment its work reached the server by up to this much; interactive runs never wait for it.",
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
