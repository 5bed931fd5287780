import { comfyInputSchema, comfyOutputFiles, comfyPrompt, comfyUIRunnerSchema } from "./comfyui.js";
import { traitsOf } from "./runnerKinds.js";

const workflow = {
  "3": { class_type: "KSampler", inputs: { seed: 1, steps: 20, cfg: 7.5, latent_image: ["5", 0] } },
  "5": { class_type: "EmptyLatentImage", inputs: { width: 512, height: 512, batch_size: 1 } },
  "6": { class_type: "CLIPTextEncode", inputs: { text: "a photo", clip: ["4", 1] } },
  "10": { class_type: "LoadImage", inputs: { image: "example.png" } },
};
const bindings = [
  { field: "prompt", node: "6", input: "text" },
  { field: "image_size", node: "5", input: { width: "width", height: "height" } },
  { field: "num_images", node: "5", input: "batch_size" },
  { field: "seed", node: "3", input: "seed" },
  { field: "cfg", node: "3", input: "cfg" },
  { field: "image", node: "10", input: "image", file: true },
];
const settings = comfyUIRunnerSchema.parse({
  kind: "comfyui",
  servers: ["http://gpu:8188"],
  output: "image",
  workflow,
  bindings,
});

describe("ComfyUI workflows as models", () => {
  it("when bindings name nodes and inputs the workflow lacks, then the settings are refused, naming them", () => {
    const bad = comfyUIRunnerSchema.safeParse({
      kind: "comfyui",
      servers: ["http://gpu:8188"],
      output: "image",
      workflow,
      bindings: [
        { field: "prompt", node: "99", input: "text" },
        { field: "steps", node: "3", input: "stepz" },
      ],
    });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.message)).toEqual([
      "no node 99 in the workflow",
      "node 3 (KSampler) has no input stepz",
    ]);
  });

  it("when a model's schema is made from its bindings, then spec fields are the spec's and others take their node's value as default", () => {
    const schema = comfyInputSchema(settings.workflow, settings.bindings) as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(schema.properties.image_size).toMatchObject({
      enum: ["square_hd", "landscape_16_9", "portrait_16_9", "landscape_4_3", "portrait_4_3"],
    });
    expect(schema.properties.num_images).toMatchObject({ type: "integer", maximum: 4 });
    expect(schema.properties.cfg).toEqual({ type: "number", default: 7.5 });
    expect(schema.properties.image).toMatchObject({ format: "uri", "x-media": "image" });
    expect(schema.required).toEqual(["prompt", "image"]);
  });

  it("when a run's prompt is made, then bound inputs are set, image_size becomes width and height, a missing seed is new, and the model's workflow is untouched", () => {
    const prompt = comfyPrompt(
      settings,
      { prompt: "a fox", image_size: "portrait_16_9", num_images: 3 },
      { image: "run_1-image.png" },
      42,
    );
    expect(prompt["6"]!.inputs.text).toBe("a fox");
    expect(prompt["5"]!.inputs).toMatchObject({ width: 576, height: 1024, batch_size: 3 });
    expect(prompt["3"]!.inputs).toMatchObject({ seed: 42, cfg: 7.5 });
    expect(prompt["10"]!.inputs.image).toBe("run_1-image.png");
    expect(settings.workflow["6"]!.inputs.text).toBe("a photo");
    expect(comfyPrompt(settings, { prompt: "x", seed: 7 }, {}, 42)["3"]!.inputs.seed).toBe(7);
  });

  it("when a prompt's history is read, then its files come in node order, and the kind is a pool of one prompt per server", () => {
    const files = comfyOutputFiles({
      outputs: {
        "12": { images: [{ filename: "b.png", subfolder: "", type: "output" }] },
        "9": {
          images: [{ filename: "a.png", subfolder: "", type: "output" }],
          gifs: [{ filename: "c.gif", subfolder: "x", type: "output" }],
        },
      },
    });
    expect(files.map((f) => f.filename)).toEqual(["a.png", "c.gif", "b.png"]);
    expect(traitsOf(settings)).toMatchObject({
      pool: { kind: "servers", concurrency: 1 },
      output: "image",
      files: "ids",
      weights: "urls",
    });
  });
});
