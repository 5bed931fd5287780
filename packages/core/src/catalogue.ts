import { z } from "zod";
import { MODEL_CATEGORIES } from "./categories.js";
import { pricingSchema } from "./pricing.js";
import { loraFieldOf } from "./lora.js";
import { runnerSchema, traitsOf } from "./runnerKinds.js";

export { MODEL_CATEGORIES, type ModelCategory } from "./categories.js";

// Model ids are path-like: 2 or more segments of [a-z0-9._-], e.g. acme/pixel/fast.
export const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/;

const jsonSchemaObject = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), z.looseObject({})),
  required: z.array(z.string()).optional(),
});

/** One entry of catalogue/models.json, as loaded by `db:seed` and written by catalogue import. */
export const catalogueEntrySchema = z
  .strictObject({
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
  })
  .superRefine((entry, ctx) => {
    // A `loras` field is a promise that the runner applies that many: never more than its slots.
    const field = loraFieldOf(entry.input_schema);
    const slots = traitsOf(entry.runner).loraSlots;
    if (field && field.max > slots)
      ctx.addIssue({
        code: "custom",
        path: ["input_schema", "properties", "loras"],
        message: slots
          ? `takes up to ${field.max} LoRAs, but the runner has ${slots} slot(s) for them (runner.loras)`
          : `the ${entry.runner.kind} runner takes no LoRAs`,
      });
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
