import { signedWeightsUrl, WEIGHTS_URL_WINDOW_S, weightsSignatureValid } from "./files.js";
import { loraFieldOf, loraMismatch, type LoraTarget } from "./lora.js";

const targets: LoraTarget[] = [{ name: "F_0", down: ["r", 64, 3, 3], up: [64, "r", 1, 1] }];
const t = (name: string, shape: number[], dtype = "F32") => ({ name, dtype, shape });

describe("LoRAs in a run", () => {
  it("when a model's schema declares its loras field, then its count, scale range, family and targets are read", () => {
    const field = loraFieldOf({
      properties: {
        loras: {
          type: "array",
          maxItems: 2,
          items: { properties: { scale: { type: "number", minimum: -1, maximum: 2, default: 0.8 } } },
          "x-lora-family": "rdn_x2",
          "x-lora-targets": targets,
        },
      },
    });
    expect(field).toEqual({ max: 2, scale: { min: -1, max: 2, default: 0.8 }, family: "rdn_x2", targets });
    expect(loraFieldOf({ properties: { prompt: { type: "string" } } })).toBeNull();
  });

  it("when weights fit the targets, then there is no mismatch; otherwise the first problem is named", () => {
    const down = t("F_0.lora_down.weight", [4, 64, 3, 3]);
    const up = t("F_0.lora_up.weight", [64, 4, 1, 1]);
    expect(loraMismatch([down, up, t("F_0.alpha", [])], targets)).toBeNull();
    expect(loraMismatch([down, up, t("X.lora_down.weight", [4, 64, 3, 3])], targets)).toMatch(
      /X.lora_down.weight names no layer/,
    );
    expect(loraMismatch([down], targets)).toMatch(/needs both/);
    expect(loraMismatch([down, t("F_0.lora_up.weight", [64, 8, 1, 1])], targets)).toMatch(/r = 4/);
    expect(loraMismatch([t("F_0.lora_down.weight", [4, 32, 3, 3]), up], targets)).toMatch(/\[r, 64, 3, 3\]/);
    expect(loraMismatch([t("F_0.lora_down.weight", [4, 64, 3, 3], "I32"), up], targets)).toMatch(/I32/);
    expect(loraMismatch([], targets)).toMatch(/no layer/);
  });
});

describe("weights URLs", () => {
  const key = Buffer.alloc(32, 3);
  const sha = "a".repeat(64);
  it("when runs of the same weights are made within a window, then their server gets one URL, genuine until the window after", () => {
    const t = 1_800_000_000;
    const first = signedWeightsUrl("https://api.test/", key, sha, t);
    expect(signedWeightsUrl("https://api.test/", key, sha, t + 60)).toBe(first);
    const url = new URL(first);
    expect(url.pathname).toBe(`/files/weights/${sha}.safetensors`);
    const expires = Number(url.searchParams.get("expires"));
    expect(expires - t).toBeGreaterThanOrEqual(WEIGHTS_URL_WINDOW_S);
    const signature = url.searchParams.get("signature")!;
    expect(weightsSignatureValid(key, sha, expires, signature, t)).toBe(true);
    expect(weightsSignatureValid(key, "b".repeat(64), expires, signature, t)).toBe(false);
    expect(weightsSignatureValid(Buffer.alloc(32, 4), sha, expires, signature, t)).toBe(false);
    expect(weightsSignatureValid(key, sha, expires, signature, expires + 1)).toBe(false);
  });
});
