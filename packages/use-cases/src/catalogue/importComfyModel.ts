// Importing a ComfyUI workflow as a model: the workflow (ComfyUI's API format) and its bindings are
// checked against each other; the server must answer /system_stats. As with every kind, the
// server's answers are never echoed.
import { z } from "zod";
import {
  comfyInputSchema,
  comfyLoraSlotSchema,
  comfyUIRunnerSchema,
  MODEL_CATEGORIES,
  modelServerUrl,
  type CatalogueEntry,
} from "@svc/core";
import type { Importer } from "./importer.js";
import { getFromServer, ImportRefused, serverBase } from "./serverImport.js";

const options = z.strictObject({
  server_url: modelServerUrl.meta({ title: "ComfyUI server URL", examples: ["http://gpu-2:8188"] }),
  workflow: z.record(z.string(), z.unknown()).meta({
    description: "ComfyUI's API format (node id -> { class_type, inputs }): what Export (API) saves",
  }),
  bindings: z.array(z.record(z.string(), z.unknown())).min(1).max(50).meta({
    description: "The model's input fields, each bound to a node input: [{ field, node, input, file? }]",
  }),
  category: z.enum(MODEL_CATEGORIES).default("image").meta({ description: "What the workflow makes" }),
  loras: z.array(comfyLoraSlotSchema).max(8).optional().meta({
    description:
      "The workflow's LoRA slots: nodes that load a LoRA from a URL, [{ node, url, strength, strength_clip? }]; the model then takes a run's loras",
  }),
});

export const comfyImporter: Importer<typeof options> = {
  kind: "comfyui",
  path: "import-comfyui",
  summary: "Import a ComfyUI workflow as a model: its input fields are its bindings",
  description:
    "`workflow` is ComfyUI's API format (node id -> { class_type, inputs }, what Export (API) saves); `bindings` map the model's input fields to node inputs ({ field, node, input } — input may be { width, height } for image_size — and file: true for an image uploaded with /upload/image). Bindings must name nodes and inputs the workflow has; the server must answer /system_stats. An id that exists already is 409 MODEL_EXISTS unless `replace` is true.",
  options,
  example: {
    server_url: "http://gpu-2:8188",
    workflow: { "6": { class_type: "CLIPTextEncode", inputs: { text: "a photo", clip: ["4", 1] } } },
    bindings: [{ field: "prompt", node: "6", input: "text" }],
    id: "you/sd15-comfy",
    tokens_per_unit: 2,
    reason: "our SD 1.5 workflow",
  },
  jsonFiles: ["workflow", "bindings", "loras"],
  async entry(o) {
    const base = await serverBase(o.server_url);
    const runner = comfyUIRunnerSchema.safeParse({
      kind: "comfyui",
      servers: [base],
      output: o.category,
      workflow: o.workflow,
      bindings: o.bindings,
      ...(o.loras && { loras: o.loras }),
    });
    if (!runner.success) {
      const issue = runner.error.issues[0]!;
      throw new ImportRefused("invalid", `${issue.path.join(".") || "workflow"}: ${issue.message}`);
    }
    if ((await getFromServer(`${base}/system_stats`))?.status !== 200)
      throw new ImportRefused("unreachable", `The ComfyUI server at ${base} could not be reached.`);
    const perImage = o.category === "image" && runner.data.bindings.some((b) => b.field === "num_images");
    return {
      category: o.category,
      pricing: {
        unit: o.category === "image" ? "image" : "run",
        tokens_per_unit: o.tokens_per_unit,
        ...(perImage && { units_from: "num_images" }),
      },
      runner: runner.data,
      input_schema: comfyInputSchema(
        runner.data.workflow,
        runner.data.bindings,
        runner.data.loras,
      ) as CatalogueEntry["input_schema"],
    };
  },
};
