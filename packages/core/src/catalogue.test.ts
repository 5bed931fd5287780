import { readFileSync } from "node:fs";
import { catalogueEntrySchema, catalogueSchema } from "./catalogue.js";

const catalogue = JSON.parse(
  readFileSync(new URL("../../../catalogue/models.json", import.meta.url), "utf8"),
) as {
  models: Record<string, unknown>[];
};
const upscale = catalogue.models.find((m) => m.id === "acme/upscale")!;
const loras = (upscale.input_schema as { properties: { loras: unknown } }).properties.loras;
const withLoras = (runner: Record<string, unknown>) => ({
  ...upscale,
  id: "acme/lora-test",
  runner,
});

describe("catalogue entries", () => {
  it("when the catalogue is read, then every entry is valid (acme/upscale takes its LoRAs on its own network)", () => {
    expect(catalogueSchema.safeParse(catalogue).success).toBe(true);
  });

  it("when a model's input takes LoRAs, then its runner must have as many slots for them; an OpenAI-style server takes none", () => {
    const cog = {
      kind: "cog",
      servers: ["http://gpu:5000"],
      output: "image",
      loras: [{ url: "lora_weights", scale: "lora_scale" }],
    };
    const oneSlot = catalogueEntrySchema.safeParse(withLoras(cog));
    expect(oneSlot.success).toBe(false);
    expect(oneSlot.error!.issues[0]).toMatchObject({
      path: ["input_schema", "properties", "loras"],
      message: expect.stringMatching(/up to 2 LoRAs, but the runner has 1 slot/) as unknown,
    });
    const twoSlots = { ...cog, loras: [...cog.loras, { url: "extra_lora", scale: "extra_lora_scale" }] };
    expect(catalogueEntrySchema.safeParse(withLoras(twoSlots)).success).toBe(true);
    const openai = catalogueEntrySchema.safeParse(
      withLoras({ kind: "openai", servers: ["http://gpu:8000"], api: "images", model: "m" }),
    );
    expect(openai.error!.issues[0]!.message).toBe("the openai runner takes no LoRAs");
    expect(loras).toBeDefined();
  });
});
