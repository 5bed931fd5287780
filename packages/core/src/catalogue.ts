import { z } from "zod";
import { cogRunnerSchema } from "./cog.js";
import { openAIServerRunnerSchema } from "./openaiServer.js";
import { comfyUIRunnerSchema } from "./comfyui.js";
import { pricingSchema } from "./pricing.js";

export const MODEL_CATEGORIES = ["image", "video", "audio"] as const;
export type ModelCategory = (typeof MODEL_CATEGORIES)[number];

// Model ids are path-like: 2 or more segments of [a-z0-9._-], e.g. acme/pixel/fast.
export const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/;

export const runnerSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("builtin"),
    // echo: no file, the input comes back as the output (a hello-world model, the benchmarks' no-op).
    // upscale: an image file in, the image at twice the size out (a trained network).
    generator: z.enum([...MODEL_CATEGORIES, "echo", "upscale"]),
    // Simulated execution time per unit, so that EXECUTING and cancel can be observed.
    delay_ms: z.int().min(0).default(0),
  }),
  cogRunnerSchema,
  openAIServerRunnerSchema,
  comfyUIRunnerSchema,
]);

export type RunnerSettings = z.infer<typeof runnerSchema>;

/** The kinds of runner: built-in generators, and the kinds of model server. */
export const RUNNER_KINDS = [
  "builtin",
  "cog",
  "openai",
  "comfyui",
] as const satisfies readonly RunnerSettings["kind"][];

const jsonSchemaObject = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), z.looseObject({})),
  required: z.array(z.string()).optional(),
});

/** One entry of catalogue/models.json, as loaded by `db:seed` and written by catalogue import. */
export const catalogueEntrySchema = z.strictObject({
  id: z.string().regex(MODEL_ID_PATTERN, "lower-case path of 2+ segments, e.g. vendor/model"),
  name: z.string().min(1),
  description: z.string().default(""),
  category: z.enum(MODEL_CATEGORIES),
  // Empty for a model that makes no media file (acme/echo).
  outputs: z.array(z.enum(MODEL_CATEGORIES)),
  status: z.string().min(1).default("active"),
  highlighted: z.boolean().default(false),
  // false: runnable by id, never listed (a model that does not honour its category's contract).
  listed: z.boolean().default(true),
  pricing: pricingSchema,
  runner: runnerSchema,
  execution_timeout_ms: z.int().positive().default(600_000),
  // Runs that may wait for the model at once; past it, creation answers 429 with Retry-After.
  max_queue: z.int().positive().optional(),
  input_schema: jsonSchemaObject,
});

export type CatalogueEntry = z.infer<typeof catalogueEntrySchema>;

export const catalogueSchema = z.strictObject({
  version: z.int().positive(),
  models: z.array(catalogueEntrySchema),
});

/**
 * A runner's settings as the audit log keeps them (imports and operators' changes alike): a
 * sealed key is replaced by the fact of it, so that no entry carries a secret, even sealed.
 */
export function runnerForAudit(runner: unknown): unknown {
  const { api_key_enc, ...rest } = runner as { api_key_enc?: string };
  return api_key_enc ? { ...rest, api_key: "(sealed)" } : rest;
}
