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
  OUTPUT_DIR: z.string().min(1).default("./var/outputs"),
  PUBLIC_BASE_URL: url(["http", "https"]).default("http://localhost:3000"),
});

export const apiEnvSchema = baseEnvSchema.extend({
  HOST: z.string().min(1).default("0.0.0.0"),
  PORT: int(0, 65535).default(3000),
  BODY_LIMIT_BYTES: int(1024, 100 * 1024 * 1024).default(1024 * 1024),
  AUTH_CACHE_TTL_MS: int(0, 600_000).default(5_000),
  CATALOGUE_CACHE_TTL_MS: int(0, 600_000).default(5_000),
  TRUST_PROXY: bool.default(false),
  READY_TIMEOUT_MS: int(50, 60_000).default(2_000),
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
});

export const workerEnvSchema = baseEnvSchema.extend({
  WORKER_CONCURRENCY: int(1, 1000).default(4),
  SHUTDOWN_GRACE_MS: int(0, 3_600_000).default(30_000),
  // A job whose worker stops renewing its lock for this long is handed to another worker.
  RUN_LOCK_MS: int(500, 600_000).default(30_000),
  // How often the sweeper re-enqueues lost QUEUED runs and fails runs past their deadline.
  SWEEP_INTERVAL_MS: int(100, 3_600_000).default(10_000),
  // A QUEUED run older than this with no job in Redis is enqueued again.
  SWEEP_QUEUED_AFTER_MS: int(0, 3_600_000).default(30_000),
  // Content policy: comma-separated blocked words or phrases, and/or a file with one per line.
  CONTENT_POLICY_BLOCKLIST: z.string().default(""),
  CONTENT_POLICY_FILE: z.string().optional(),
});

export type BaseConfig = z.infer<typeof baseEnvSchema>;
export type ApiConfig = z.infer<typeof apiEnvSchema>;
export type WorkerConfig = z.infer<typeof workerEnvSchema>;
