// The API's settings beyond the service's.
import { z } from "zod";
import { bool, int, trustProxy } from "../parse.js";
import { doc } from "./doc.js";
import { serviceEnvSchema } from "./base.js";

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
  WEIGHTS_MAX_BYTES: doc(
    int(1_024, 2_000_000_000).default(1024 * 1024 * 1024),
    "The largest weights file (a LoRA's .safetensors): an upload past it is 413 before it is read, a URL's file past it 400.",
  ),
  BATCH_DISCOUNT_PERCENT: doc(
    int(0, 100).default(50),
    "The percent off a model's price for each item of a batch (a model's pricing.batch_discount_percent overrides it); an item's price is rounded up to a whole token.",
  ),
  WEIGHTS_PER_ACCOUNT: doc(
    int(1, 100_000).default(100),
    "Weights an account may hold per mode (live, test); uploading one more is 409 WEIGHTS_LIMIT_REACHED until one is deleted.",
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
