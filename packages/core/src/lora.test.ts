import { signedWeightsUrl, WEIGHTS_URL_WINDOW_S, weightsRef, weightsSignatureValid } from "./files.js";
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

  it("when a run names weights by a URL of ours, then it names them by id or by their bytes; another https URL is fetched, anything else is an id", () => {
    const base = "https://api.test/";
    expect(weightsRef("wts_1", base)).toEqual({ kind: "id", id: "wts_1" });
    expect(weightsRef("https://api.test/api/v1/weights/wts_2", base)).toEqual({ kind: "id", id: "wts_2" });
    const served = signedWeightsUrl(base, key, sha, 1_800_000_000);
    expect(weightsRef(served, base)).toEqual({ kind: "sha256", sha256: sha });
    expect(weightsRef("https://api.test/files/abc", base)).toEqual({
      kind: "unknown",
      url: "https://api.test/files/abc",
    });
    expect(weightsRef("https://hf.test/x.safetensors", base)).toEqual({
      kind: "fetch",
      url: "https://hf.test/x.safetensors",
    });
    // Over plain HTTP (a local install), our URLs are still ours, never fetched.
    expect(weightsRef("http://127.0.0.1:3000/api/v1/weights/wts_3", "http://127.0.0.1:3000")).toEqual({
      kind: "id",
      id: "wts_3",
    });
  });
});
