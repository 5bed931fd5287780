// ComfyUI (comfyanonymous/ComfyUI) as a kind of model server: a model is a workflow in ComfyUI's
// API format (what "Export (API)" saves: node id -> { class_type, inputs }) plus bindings from the
// model's input fields to node inputs. The model's input schema comes from its bindings; a run's
// input becomes the workflow it sends with POST /prompt.
import { z } from "zod";
import { loraCacheSetting, modelServerUrl, serverPool } from "./modelServers.js";
import type { RunnerTraits } from "./runnerKinds.js";
import { IMAGE_SIZES, imageSizeField } from "./media.js";

const nodeId = z.string().min(1).max(40);
const inputName = z.string().min(1).max(100);

/** One input field of the model, and where its value goes in the workflow. */
export const comfyBindingSchema = z.strictObject({
  /** The model's input field (prompt, image_size, num_images, seed, an image, or any other). */
  field: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "a lower-case field name"),
  node: nodeId,
  /** The node input it sets; image_size sets two ({ width, height }: their input names). */
  input: z.union([inputName, z.strictObject({ width: inputName, height: inputName })]),
  /** An image the run gives: uploaded with /upload/image, its name set in the input (LoadImage). */
  file: z.boolean().default(false),
  description: z.string().max(500).optional(),
});
export type ComfyBinding = z.infer<typeof comfyBindingSchema>;

/**
 * A LoRA slot of the workflow: a node that loads a LoRA from a URL (the "Load LoRA from URL"
 * custom nodes), the inputs that take its URL and strength (and the CLIP strength, where the node
 * has one). A run's LoRAs fill the slots in order; a slot left empty gets strength 0.
 */
export const comfyLoraSlotSchema = z.strictObject({
  node: nodeId,
  url: inputName,
  strength: inputName,
  strength_clip: inputName.optional(),
});
export type ComfyLoraSlot = z.infer<typeof comfyLoraSlotSchema>;

export const comfyWorkflowSchema = z.record(
  nodeId,
  z.looseObject({ class_type: z.string().min(1), inputs: z.record(z.string(), z.unknown()) }),
);
export type ComfyWorkflow = z.infer<typeof comfyWorkflowSchema>;

export const comfyUIRunnerSchema = z
  .strictObject({
    kind: z.literal("comfyui"),
    /** Base URLs of ComfyUI servers with this workflow's models (one prompt at a time each). */
    servers: z.array(modelServerUrl).min(1),
    /** What its outputs are: images, video or audio. */
    output: z.enum(["image", "video", "audio"]),
    workflow: comfyWorkflowSchema,
    bindings: z.array(comfyBindingSchema).min(1),
    loras: z.array(comfyLoraSlotSchema).max(8).default([]),
    /** How many LoRAs a server keeps loaded (warm routing's guess of its cache). */
    lora_cache: loraCacheSetting,
    health_interval_ms: z.int().min(50).default(2_000),
    request_timeout_ms: z.int().min(100).default(10_000),
  })
  .superRefine((s, ctx) => {
    for (const [i, b] of s.bindings.entries()) {
      const node = s.workflow[b.node];
      if (!node) {
        ctx.addIssue({
          code: "custom",
          path: ["bindings", i, "node"],
          message: `no node ${b.node} in the workflow`,
        });
        continue;
      }
      const names = typeof b.input === "string" ? [b.input] : [b.input.width, b.input.height];
      for (const name of names)
        if (!(name in node.inputs))
          ctx.addIssue({
            code: "custom",
            path: ["bindings", i, "input"],
            message: `node ${b.node} (${node.class_type}) has no input ${name}`,
          });
    }
    for (const [i, slot] of s.loras.entries()) {
      const node = s.workflow[slot.node];
      const names = [slot.url, slot.strength, ...(slot.strength_clip ? [slot.strength_clip] : [])];
      const missing = node ? names.find((name) => !(name in node.inputs)) : slot.node;
      if (missing !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["loras", i],
          message: node
            ? `node ${slot.node} (${node.class_type}) has no input ${missing}`
            : `no node ${slot.node} in the workflow`,
        });
    }
  });
export type ComfyUISettings = z.infer<typeof comfyUIRunnerSchema>;

type Json = Record<string, unknown>;

/** The JSON Schema of a node input's current value, with it as the default. */
function fieldOfValue(value: unknown): Json {
  if (typeof value === "number")
    return Number.isInteger(value) ? { type: "integer", default: value } : { type: "number", default: value };
  if (typeof value === "boolean") return { type: "boolean", default: value };
  return { type: "string", default: typeof value === "string" ? value : String(value) };
}

/**
 * The model's input schema from its bindings: the interface spec's fields where a binding names
 * one (prompt; image_size with its presets, for a width-and-height binding; num_images; seed), an
 * image for a file binding, and any other field typed by its node input's current value.
 */
export function comfyInputSchema(
  workflow: ComfyWorkflow,
  bindings: readonly ComfyBinding[],
  loraSlots: readonly ComfyLoraSlot[] = [],
): Json {
  const properties: Record<string, Json> = {};
  for (const b of bindings) {
    const current = typeof b.input === "string" ? workflow[b.node]?.inputs[b.input] : undefined;
    const field: Json = b.file
      ? {
          type: "string",
          format: "uri",
          "x-media": "image",
          "x-content-types": ["image/png", "image/jpeg", "image/webp"],
        }
      : b.field === "prompt"
        ? { type: "string", minLength: 1, maxLength: 4000, description: "Text description of what to make." }
        : typeof b.input === "object"
          ? imageSizeField()
          : b.field === "num_images"
            ? {
                type: "integer",
                minimum: 1,
                maximum: 4,
                default: 1,
                description: "Number of images to generate.",
              }
            : b.field === "seed"
              ? {
                  type: "integer",
                  minimum: 0,
                  maximum: 4294967295,
                  description: "Random seed; omitted, a new one each run.",
                }
              : fieldOfValue(current);
    properties[b.field] = b.description ? { ...field, description: b.description } : field;
  }
  if (loraSlots.length) properties.loras = lorasField(loraSlots.length);
  const required = [...new Set(bindings.filter((b) => b.field === "prompt" || b.file).map((b) => b.field))];
  return { type: "object", properties, ...(required.length && { required }), additionalProperties: false };
}

/**
 * The workflow a run sends: a copy of the model's, each bound input set from the run's input
 * (image_size as width and height, a file binding as the name its upload got). A field the run
 * leaves out keeps the workflow's value, but for a seed, which is `seed` (new for each run), so
 * that two runs of one prompt differ as they would in ComfyUI itself.
 */
export function comfyPrompt(
  s: Pick<ComfyUISettings, "workflow" | "bindings" | "loras">,
  input: Record<string, unknown>,
  uploaded: Readonly<Record<string, string>>,
  seed: number,
): ComfyWorkflow {
  const workflow = structuredClone(s.workflow);
  for (const b of s.bindings) {
    const inputs = workflow[b.node]!.inputs;
    const value = b.file ? uploaded[b.field] : input[b.field];
    if (typeof b.input === "object") {
      const dims = IMAGE_SIZES[String(value ?? "square_hd")];
      if (dims) [inputs[b.input.width], inputs[b.input.height]] = dims;
    } else if (value !== undefined) inputs[b.input] = value;
    else if (b.field === "seed") inputs[b.input] = seed;
  }
  const loras = (input.loras ?? []) as { weights: string; scale: number }[];
  for (const [i, slot] of (s.loras ?? []).entries()) {
    const inputs = workflow[slot.node]!.inputs;
    const lora = loras[i];
    if (lora) inputs[slot.url] = lora.weights;
    inputs[slot.strength] = lora?.scale ?? 0;
    if (slot.strength_clip) inputs[slot.strength_clip] = lora?.scale ?? 0;
  }
  return workflow;
}

/** A file an output node saved, as /history names it (fetched with /view). */
const comfyFiles = z.array(
  z.looseObject({
    filename: z.string(),
    subfolder: z.string().default(""),
    type: z.string().default("output"),
  }),
);

/** A prompt's entry in ComfyUI's /history: its outputs by node, and how it ended. */
export const comfyHistoryEntrySchema = z.looseObject({
  prompt: z.array(z.unknown()).optional(),
  outputs: z
    .record(
      z.string(),
      z.looseObject({
        images: comfyFiles.optional(),
        gifs: comfyFiles.optional(),
        audio: comfyFiles.optional(),
      }),
    )
    .default({}),
  status: z
    .looseObject({
      status_str: z.string().optional(),
      completed: z.boolean().optional(),
      messages: z.array(z.unknown()).optional(),
    })
    .optional(),
});
export type ComfyHistoryEntry = z.infer<typeof comfyHistoryEntrySchema>;

/** The files a prompt made, in node order: images, animated images (gifs) and audio. */
export const comfyOutputFiles = (entry: ComfyHistoryEntry) =>
  Object.keys(entry.outputs)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))
    .flatMap((node) => {
      const o = entry.outputs[node]!;
      return [...(o.images ?? []), ...(o.gifs ?? []), ...(o.audio ?? [])];
    });

/**
 * ComfyUI servers run one prompt at a time from their own FIFO queue: one slot each, so that runs
 * wait in our fair queue, never in theirs. Input images are uploaded to the server's /upload/image
 * by the worker, from the files' bytes; the prompt is followed on the socket that sent it.
 */
export const comfyUITraits = (s: ComfyUISettings): RunnerTraits => ({
  pool: serverPool(s, 1),
  costsCompute: true,
  instant: false,
  output: s.output,
  files: "ids",
  weights: "urls",
  loraSlots: s.loras.length,
  executesWhereLeased: true,
});

/** The `loras` field of a model with `slots` LoRA slots (its weights given as ids or https URLs). */
function lorasField(slots: number): Json {
  return {
    type: "array",
    maxItems: slots,
    default: [],
    description: `Up to ${slots} LoRAs of yours (POST /weights), each loaded by the workflow from its URL at its strength.`,
    items: {
      type: "object",
      properties: {
        weights: {
          type: "string",
          minLength: 1,
          maxLength: 2048,
          description: "Weights of yours: their id, or an https URL.",
        },
        scale: { type: "number", minimum: -4, maximum: 4, default: 1, description: "Its strength." },
      },
      required: ["weights"],
      additionalProperties: false,
    },
  };
}
