// Every setting, declared once with its documentation (doc()): one module per process that reads it.
import type { z } from "zod";
import type { apiEnvSchema } from "./schemas/api.js";
import type { baseEnvSchema } from "./schemas/base.js";
import type { workerEnvSchema } from "./schemas/worker.js";

export type { VariableDoc } from "./schemas/doc.js";
export { baseEnvSchema, crossRules, serviceEnvSchema } from "./schemas/base.js";
export { apiEnvSchema } from "./schemas/api.js";
export { workerEnvSchema } from "./schemas/worker.js";

export type BaseConfig = z.infer<typeof baseEnvSchema>;
export type ApiConfig = z.infer<typeof apiEnvSchema>;
export type WorkerConfig = z.infer<typeof workerEnvSchema>;
