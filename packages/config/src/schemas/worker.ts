// The worker's settings beyond the service's.
import { z } from "zod";
import { int, url } from "../parse.js";
import { doc } from "./doc.js";
import { serviceEnvSchema } from "./base.js";

export const workerEnvSchema = serviceEnvSchema.extend({
  WORKER_CONCURRENCY: doc(
    int(1, 1000).default(400),
    "Runs executed at once by one worker process (model servers, waits and settlements overlap).",
  ),
  WORKER_LANES: doc(
    z.enum(["all", "interactive", "batch"]).default("all"),
    "Which runs this worker executes: `all`; `interactive` (normal and low runs: no batch items, no batch feeder); or `batch` (batch items alone, and the batch feeder). Splitting them keeps batch load off the processes that interactive runs cross; every lane needs a worker that executes it.",
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
  SCHEDULER_NEXT_RUN_MAX_HOLD_MS: doc(
    int(0, 60_000).default(250),
    "On a model server whose answer comes back on the request that sends the work (synchronous Cog, OpenAI-style, ComfyUI) and whose runs hold a place this long or less on average (ms), each place keeps its next waiting run at hand, sent the moment the current one ends, without asking Redis first. A run arriving later may then wait up to one such run longer for a place. 0 turns it off.",
  ),
  RUN_LOCK_MS: doc(
    int(500, 600_000).default(30_000),
    "A run whose worker stops renewing its lock for this long is handed to another worker. Keep it equal on every worker.",
  ),
  OUTAGE_HORIZON_MS: doc(
    int(1_000, 86_400_000).default(900_000),
    "While Postgres or Redis is unreachable, a run's start and a finished run's settlement are retried (backoff up to 2 s) for this long before the attempt counts as failed.",
  ),
  BATCH_FEED_INTERVAL_MS: doc(
    int(20, 60_000).default(250),
    "How often a worker (one at a time, by a lock in Redis) admits batch items (about two intervals' worth ahead of the places, and at once when a worker ended a run of a model with less than one interval's worth left), expires batches past their window and moves batches on as their items end.",
  ),
  BATCH_MAX_SHARE_PERCENT: doc(
    int(1, 100).default(50),
    "The most of a model's places batch items may hold at once, in percent (at least one place): interactive runs keep the rest, and a place goes to a batch item only while no interactive run of any account waits for it.",
  ),
  BATCH_UNPOOLED_IN_FLIGHT: doc(
    int(1, 10_000).default(32),
    "Batch items of a model that needs no places (acme/echo) in flight at once.",
  ),
  SWEEP_INTERVAL_MS: doc(
    int(100, 3_600_000).default(10_000),
    "How often the sweeper puts lost runs back in line, gives a job to leases left without one (a worker that died in a run's first second), and fails runs past their deadline.",
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
