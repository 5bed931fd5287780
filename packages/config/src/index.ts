import { parseEnv } from "./parse.js";
import {
  apiEnvSchema,
  baseEnvSchema,
  workerEnvSchema,
  type ApiConfig,
  type BaseConfig,
  type WorkerConfig,
} from "./schemas.js";

export { ConfigError, parseEnv } from "./parse.js";
export * from "./schemas.js";

type Env = Record<string, string | undefined>;

export const loadBaseConfig = (env: Env = process.env): BaseConfig => parseEnv(baseEnvSchema, env);
export const loadApiConfig = (env: Env = process.env): ApiConfig => parseEnv(apiEnvSchema, env);
export const loadWorkerConfig = (env: Env = process.env): WorkerConfig => parseEnv(workerEnvSchema, env);
