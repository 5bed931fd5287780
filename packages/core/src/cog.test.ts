import { cogInputSchema, cogRunnerSchema, mapCogInput } from "./cog.js";
import { traitsOf } from "./runnerKinds.js";

describe("Cog input mapping", () => {
  const map = cogRunnerSchema.parse({
    kind: "cog",
    servers: ["http://gpu-1:5000"],
    output: "image",
    input_map: {
      rename: { num_images: "num_outputs" },
      expand: {
        image_size: {
          square_hd: { width: 1024, height: 1024 },
          landscape_16_9: { width: 1024, height: 576 },
        },
      },
    },
  }).input_map;

  it("when our image input is mapped, then sizes expand, names change and the rest passes", () => {
    expect(
      mapCogInput({ prompt: "a fox", image_size: "landscape_16_9", num_images: 2, seed: 7 }, map),
    ).toEqual({
      prompt: "a fox",
      width: 1024,
      height: 576,
      num_outputs: 2,
      seed: 7,
    });
  });

  it("when a value has no expansion, then mapping fails loudly", () => {
    expect(() => mapCogInput({ image_size: "portrait_4_3" }, map)).toThrow(
      /no Cog mapping for image_size=portrait_4_3/,
    );
  });

  it("when no mapping is configured, then the input passes unchanged", () => {
    const plain = cogRunnerSchema.parse({ kind: "cog", servers: ["http://x:5000"], output: "audio" });
    expect(plain).toMatchObject({ concurrency: 1, dispatch_attempts: 3 });
    expect(mapCogInput({ prompt: "p" }, plain.input_map)).toEqual({ prompt: "p" });
  });

  it("when a model's predictions are synchronous, then its runs execute where leased; asynchronous ones (the default of an entry that names none) anywhere", () => {
    const of = (extra: object) =>
      traitsOf(cogRunnerSchema.parse({ kind: "cog", servers: ["http://x:5000"], output: "image", ...extra }));
    expect(of({ predictions: "sync" }).executesWhereLeased).toBe(true);
    expect(of({ predictions: "async" }).executesWhereLeased).toBe(false);
    expect(of({}).executesWhereLeased).toBe(false);
  });
});

describe("Cog OpenAPI input schema", () => {
  const openapi = {
    components: {
      schemas: {
        Input: {
          type: "object",
          title: "Input",
          required: ["prompt"],
          properties: {
            prompt: { type: "string", title: "Prompt", description: "What to draw", "x-order": 0 },
            width: { type: "integer", default: 512, minimum: 64, maximum: 2048, "x-order": 1 },
            scheduler: {
              allOf: [{ $ref: "#/components/schemas/scheduler" }],
              default: "DDIM",
              description: "Sampler",
              "x-order": 2,
            },
          },
        },
        scheduler: {
          title: "scheduler",
          enum: ["DDIM", "K_EULER"],
          type: "string",
          description: "An enumeration.",
        },
      },
    },
  };

  it("when converted, then refs are inlined, x-order dropped and unknown fields refused", () => {
    expect(cogInputSchema(openapi)).toEqual({
      type: "object",
      required: ["prompt"],
      additionalProperties: false,
      properties: {
        prompt: { type: "string", title: "Prompt", description: "What to draw" },
        width: { type: "integer", default: 512, minimum: 64, maximum: 2048 },
        scheduler: {
          title: "scheduler",
          enum: ["DDIM", "K_EULER"],
          type: "string",
          default: "DDIM",
          description: "Sampler",
        },
      },
    });
  });

  it("when the document has no Input schema, then it is refused", () => {
    expect(() => cogInputSchema({ components: { schemas: {} } })).toThrow(/Input/);
  });
});
