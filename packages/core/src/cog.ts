import { createHmac } from "node:crypto";
import { z } from "zod";
import { loraCacheSetting, modelServerUrl, serverPool } from "./modelServers.js";
import type { RunnerTraits } from "./runnerKinds.js";

// Cog (replicate/cog) HTTP contract: the settings of a cog runner in the catalogue, how our
// public input maps onto a Cog model's own input, and the prediction object Cog sends back.
export const cogRunnerSchema = z.strictObject({
  kind: z.literal("cog"),
  /** Base URLs of Cog servers running this model (one or more replicas). */
  servers: z.array(modelServerUrl).min(1),
  /** Which output field our API shows: images, video or audio. */
  output: z.enum(["image", "video", "audio"]),
  /** Predictions one worker process sends to one server at a time (Cog's concurrency.max). */
  concurrency: z.int().min(1).default(1),
  /** Servers tried in turn when one fails or dies mid-run, before the run fails. */
  dispatch_attempts: z.int().min(1).default(3),
  /** How often a server is health-checked while a prediction runs on it. */
  health_interval_ms: z.int().min(50).default(2_000),
  request_timeout_ms: z.int().min(100).default(10_000),
  /**
   * How a prediction's end comes back. `sync`: on the request that sends it (POST /predictions
   * with our id, no Prefer header), from the worker that leased the server; a run taken over
   * after its worker died sends it again (Cog cancels a synchronous prediction whose connection
   * drops). `async`: Prefer: respond-async and the `completed` webhook, to any worker; a run
   * taken over re-attaches to its prediction (worth it when predictions take minutes). Rows made
   * before this setting existed keep `async`; an import chooses `sync` unless told otherwise.
   */
  predictions: z.enum(["sync", "async"]).default("async"),
  input_map: z
    .strictObject({
      /** Our field -> the Cog model's field, e.g. num_images -> num_outputs. */
      rename: z.record(z.string(), z.string()).default({}),
      /** Our field -> value -> Cog fields, e.g. image_size: { square_hd: { width: 1024, height: 1024 } }. */
      expand: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))).default({}),
    })
    .default({ rename: {}, expand: {} }),
  /**
   * Where a run's LoRAs go among the Cog model's inputs, one slot each in order: its URL field and
   * its scale field (cog-flux style models: lora_weights and lora_scale, then extra_lora and
   * extra_lora_scale). The model's input schema declares its `loras` field to match.
   */
  loras: z
    .array(z.strictObject({ url: z.string().min(1).max(100), scale: z.string().min(1).max(100) }))
    .max(8)
    .default([]),
  /** How many LoRAs a server keeps loaded (warm routing's guess of its cache). */
  lora_cache: loraCacheSetting,
});

export type CogRunnerSettings = z.infer<typeof cogRunnerSchema>;

/**
 * Our validated input in the Cog model's terms: expanded fields, renamed fields, the run's LoRAs
 * (their URLs by then) in the model's slots, the rest as is.
 */
export function mapCogInput(
  input: Record<string, unknown>,
  map: CogRunnerSettings["input_map"],
  loraSlots: CogRunnerSettings["loras"] = [],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === "loras" && loraSlots.length) {
      (value as { weights: string; scale: number }[]).forEach((lora, i) => {
        const slot = loraSlots[i];
        if (!slot) return;
        out[slot.url] = lora.weights;
        out[slot.scale] = lora.scale;
      });
      continue;
    }
    const expansion = map.expand[key];
    if (expansion) {
      const fields = expansion[String(value)];
      if (!fields) throw new RangeError(`no Cog mapping for ${key}=${String(value)}`);
      Object.assign(out, fields);
    } else {
      out[map.rename[key] ?? key] = value;
    }
  }
  return out;
}

export const COG_STATUSES = ["starting", "processing", "succeeded", "failed", "canceled"] as const;

export const cogPredictionSchema = z.looseObject({
  id: z.string().optional(),
  status: z.enum(COG_STATUSES),
  output: z.unknown().optional(),
  error: z.string().nullish(),
});

export type CogPrediction = z.infer<typeof cogPredictionSchema>;

export const COG_TERMINAL = new Set<CogPrediction["status"]>(["succeeded", "failed", "canceled"]);

type Json = Record<string, unknown>;

/**
 * The model's input JSON Schema from a Cog server's /openapi.json: components.schemas.Input with
 * $refs (Cog puts enums in their own schemas, referenced through allOf) resolved inline, Cog's
 * x-order dropped, and unknown fields refused.
 */
export function cogInputSchema(openapi: unknown): Json {
  const schemas = (openapi as { components?: { schemas?: Record<string, Json> } })?.components?.schemas;
  const input = schemas?.Input;
  if (!input || input.type !== "object" || typeof input.properties !== "object") {
    throw new Error("the OpenAPI document has no components.schemas.Input object schema");
  }
  const resolve = (node: unknown, depth = 0): unknown => {
    if (depth > 20 || node === null || typeof node !== "object") return node;
    if (Array.isArray(node)) return node.map((n) => resolve(n, depth + 1));
    const obj = node as Json;
    if (typeof obj.$ref === "string") {
      const name = obj.$ref.replace("#/components/schemas/", "");
      const target = schemas![name];
      if (!target) throw new Error(`unresolved $ref ${obj.$ref}`);
      return resolve(target, depth + 1);
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(obj)) {
      if (k === "x-order") continue;
      out[k] = resolve(v, depth + 1);
    }
    // allOf with a single member (Cog's enum wrapper) is folded into the property itself.
    if (Array.isArray(out.allOf) && out.allOf.length === 1) {
      const [only] = out.allOf as Json[];
      delete out.allOf;
      return { ...only, ...out };
    }
    return out;
  };
  const properties = resolve(input.properties) as Json;
  return {
    type: "object",
    properties,
    ...(Array.isArray(input.required) && { required: input.required }),
    additionalProperties: false,
  };
}

/**
 * The token of the workers' upload endpoint, which Cog servers started with --upload-url PUT
 * their output files to: one per installation (Cog's upload URL is set when the server starts,
 * not per prediction), an HMAC under SECRETS_KEY like the predictions' webhook tokens.
 */
export function cogUploadToken(secretsKey: Buffer): string {
  return createHmac("sha256", secretsKey).update("cog-uploads").digest("hex");
}

/** What to give Cog as --upload-url (COG_CALLBACK_URL's): each file is PUT to it followed by its name. */
export function cogUploadUrl(callbackBase: string, secretsKey: Buffer): string {
  return `${callbackBase.replace(/\/$/, "")}/cog/uploads/${cogUploadToken(secretsKey)}/`;
}

/**
 * Cog servers, each with `concurrency` slots, a slot bound to its server. A synchronous
 * prediction's answer comes back on its request: it executes where leased. An asynchronous one's
 * result reaches any worker by webhook: it need not.
 */
export const cogTraits = (s: CogRunnerSettings): RunnerTraits => ({
  pool: serverPool(s, s.concurrency),
  costsCompute: true,
  instant: false,
  output: s.output,
  files: "urls",
  weights: "urls",
  loraSlots: s.loras.length,
  executesWhereLeased: s.predictions === "sync",
});
