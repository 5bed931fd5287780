import type { BaseConfig } from "@svc/config";
import { localStore } from "./local.js";
import { outputUrls, type OutputUrls } from "./outputs.js";
import { s3Store } from "./s3.js";
import type { OutputStore } from "./store.js";

export * from "./store.js";
export * from "./outputs.js";
export { localStore } from "./local.js";
export * from "./inputs.js";
export { s3Store, type S3Settings } from "./s3.js";

type StorageConfig = Pick<
  BaseConfig,
  | "OUTPUT_STORAGE"
  | "OUTPUT_DIR"
  | "OUTPUT_URLS"
  | "OUTPUT_URL_TTL_SECONDS"
  | "PUBLIC_BASE_URL"
  | "S3_BUCKET"
  | "S3_PREFIX"
  | "S3_REGION"
  | "S3_ENDPOINT"
  | "S3_PUBLIC_ENDPOINT"
  | "S3_FORCE_PATH_STYLE"
>;

/** The process's output store, as configured. */
export function createOutputStore(config: StorageConfig): OutputStore {
  if (config.OUTPUT_STORAGE === "local") return localStore(config.OUTPUT_DIR);
  // Loading the configuration refuses s3 without a bucket; this says so to the type checker.
  if (!config.S3_BUCKET) throw new Error("OUTPUT_STORAGE=s3 needs S3_BUCKET");
  return s3Store({
    bucket: config.S3_BUCKET,
    prefix: config.S3_PREFIX,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    publicEndpoint: config.S3_PUBLIC_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}

/** How output URLs reach clients, as configured. */
export const configuredOutputUrls = (store: OutputStore, config: StorageConfig): OutputUrls =>
  outputUrls(store, {
    mode: config.OUTPUT_URLS,
    ttlSeconds: config.OUTPUT_URL_TTL_SECONDS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
  });
