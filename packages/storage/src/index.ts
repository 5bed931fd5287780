import type { BaseConfig } from "@svc/config";
import { localStore } from "./local.js";
import { outputUrls, type OutputUrls } from "./outputs.js";
import type { S3Settings } from "./s3.js";
import type { OutputStore, S3OutputStore } from "./store.js";

export * from "./store.js";
export * from "./outputs.js";
export { localFile, localOutputKeys, localPath, localStore } from "./local.js";
export * from "./inputs.js";
export type { S3Settings } from "./s3.js";

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
  return lazyS3Store({
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

/**
 * An S3 store whose SDK is loaded on its first use: a process configured for local storage never
 * loads it (tens of MB and a few hundred ms of start-up in each process).
 */
function lazyS3Store(settings: S3Settings): S3OutputStore {
  let store: S3OutputStore | undefined;
  let loading: Promise<S3OutputStore> | undefined;
  const s3 = () => (loading ??= import("./s3.js").then((m) => (store = m.s3Store(settings))));
  return {
    kind: "s3",
    put: async (key, body, signal) => (await s3()).put(key, body, signal),
    read: async (key, conditions, signal) => (await s3()).read(key, conditions, signal),
    remove: async (keys) => (await s3()).remove(keys),
    isExpired: async (token) => (await s3()).isExpired(token),
    expire: async (before, limit) => (await s3()).expire(before, limit),
    signedUrl: async (key, seconds) => (await s3()).signedUrl(key, seconds),
    close: () => store?.close(),
  };
}
