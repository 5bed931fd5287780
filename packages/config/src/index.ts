import { parseEnv } from "./parse.js";
import {
  apiEnvSchema,
  baseEnvSchema,
  crossRules,
  workerEnvSchema,
  type ApiConfig,
  type BaseConfig,
  type WorkerConfig,
} from "./schemas.js";

import { ConfigError } from "./parse.js";
export { ConfigError, parseEnv } from "./parse.js";
export * from "./schemas.js";

type Env = Record<string, string | undefined>;

export const loadBaseConfig = (env: Env = process.env): BaseConfig =>
  parseEnv(baseEnvSchema.superRefine(crossRules), env);
export const loadApiConfig = (env: Env = process.env): ApiConfig =>
  parseEnv(apiEnvSchema.superRefine(crossRules), env);
export const loadWorkerConfig = (env: Env = process.env): WorkerConfig =>
  parseEnv(workerEnvSchema.superRefine(crossRules), env);

/** For a process's entry point: the parsed configuration, or exit 78 (EX_CONFIG) naming every problem. */
export function configOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
}
