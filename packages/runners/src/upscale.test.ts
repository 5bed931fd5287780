import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { localPath, localStore, runOutputs } from "@svc/storage";
import { loraFieldOf, loraMismatch, writeSafetensors } from "@svc/core";
import { createRunners, renderImage } from "./index.js";

const runners = createRunners({ generatorThreads: 1 });
afterAll(() => runners.close());
const settings = { kind: "builtin" as const, generator: "upscale" as const, delay_ms: 0 };

/** The image's pixels as RGB. */
const rgbOf = (png: PNG) => {
  const out = new Float64Array(png.width * png.height * 3);
  for (let i = 0, j = 0; i < png.data.length; i += 4, j += 3) {
    out[j] = png.data[i]!;
    out[j + 1] = png.data[i + 1]!;
    out[j + 2] = png.data[i + 2]!;
  }
  return out;
};

/** A plain bilinear resize to twice the size (what a network must do better than). */
function bilinear2x(rgb: Float64Array, width: number, height: number): Float64Array {
  const out = new Float64Array(width * height * 12);
  for (let y = 0; y < height * 2; y++)
    for (let x = 0; x < width * 2; x++) {
      const sx = Math.min(width - 1, Math.max(0, (x + 0.5) / 2 - 0.5));
      const sy = Math.min(height - 1, Math.max(0, (y + 0.5) / 2 - 0.5));
      const [x0, y0] = [Math.floor(sx), Math.floor(sy)];
      const [x1, y1] = [Math.min(width - 1, x0 + 1), Math.min(height - 1, y0 + 1)];
      const [fx, fy] = [sx - x0, sy - y0];
      for (let c = 0; c < 3; c++) {
        const at = (xx: number, yy: number) => rgb[(yy * width + xx) * 3 + c]!;
        out[(y * width * 2 + x) * 3 + c] =
          at(x0, y0) * (1 - fx) * (1 - fy) +
          at(x1, y0) * fx * (1 - fy) +
          at(x0, y1) * (1 - fx) * fy +
          at(x1, y1) * fx * fy;
      }
    }
  return out;
}

const meanAbs = (a: Float64Array, b: Float64Array) =>
  a.reduce((sum, v, i) => sum + Math.abs(v - b[i]!), 0) / a.length;

async function upscale(
  image: Uint8Array,
  contentType: string,
  loras: Record<string, Uint8Array> = {},
  scale = 1,
) {
  const dir = await mkdtemp(join(tmpdir(), "svc-upscale-"));
  const outputs = runOutputs(localStore(dir), "https://api.test", Buffer.alloc(32))("run_test");
  const result = await runners.for(settings).run({
    runId: "run_upscale",
    input: {
      image: "file_0123456789abcdefghijkl",
      loras: Object.keys(loras).map((weights) => ({ weights, scale })),
    },
    settings,
    unitsRequested: 1,
    signal: new AbortController().signal,
    outputs,
    progress: () => {},
    inputFile: async (id) =>
      id === "file_0123456789abcdefghijkl" ? { bytes: image, contentType } : undefined,
    weights: async (id) => loras[id],
  });
  const url = (result.output.images as string[])[0]!;
  return {
    result,
    png: PNG.sync.read(await readFile(localPath(dir, url.slice("https://api.test/files/".length)))),
  };
}

describe("acme/upscale: a trained x2 super-resolution network on the render threads", () => {
  it("when a PNG is upscaled, then the output is twice its size, close to it, and unlike a plain resize", async () => {
    const input = PNG.sync.read(renderImage("a red fox in the snow", 48, 32, 3));
    const { result, png } = await upscale(PNG.sync.write(input), "image/png");
    expect(result.output.images as string[]).toHaveLength(1);
    expect([png.width, png.height]).toEqual([96, 64]);
    const out = rgbOf(png);
    const source = rgbOf(input);
    // Averaged back down by 2, the output is the input (it is that image, larger)...
    const down = new Float64Array(source.length);
    for (let y = 0; y < 32; y++)
      for (let x = 0; x < 48; x++)
        for (let c = 0; c < 3; c++) {
          const at = (xx: number, yy: number) => out[(yy * 96 + xx) * 3 + c]!;
          down[(y * 48 + x) * 3 + c] =
            (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1)) / 4;
        }
    expect(meanAbs(down, source)).toBeLessThan(12);
    // ...but the network's own work, not an interpolation.
    expect(meanAbs(out, bilinear2x(source, 48, 32))).toBeGreaterThan(1);
  });

  it("when a JPEG is given, then it is decoded and upscaled the same", async () => {
    const input = PNG.sync.read(renderImage("blue waves", 24, 24, 1));
    const jpg = jpeg.encode({ data: input.data, width: 24, height: 24 }, 90).data;
    const { png } = await upscale(jpg, "image/jpeg");
    expect([png.width, png.height]).toEqual([48, 48]);
  });

  it("when the file is gone or not PNG or JPEG, then the run fails with its own code", async () => {
    await expect(upscale(Buffer.from("x"), "image/gif")).rejects.toMatchObject({ code: "INVALID_INPUT" });
    const runner = runners.for(settings);
    await expect(
      runner.run({
        runId: "run_gone",
        input: { image: "file_0123456789abcdefghijkl" },
        settings,
        unitsRequested: 1,
        signal: new AbortController().signal,
        outputs: runOutputs(localStore(tmpdir()), "https://api.test", Buffer.alloc(32))("run_test"),
        progress: () => {},
        inputFile: async () => undefined,
      }),
    ).rejects.toMatchObject({ code: "INPUT_FILE_UNAVAILABLE" });
  });

  /** A LoRA of one layer: down [r, in, kh, kw] and up [out, r, 1, 1] filled by `value`. */
  const loraOf = (layer: string, down: number[], up: number[], value: number) => {
    const tensor = (name: string, shape: number[]) => {
      const n = shape.reduce((a, b) => a * b, 1);
      return { name, dtype: "F32", shape, data: new Uint8Array(new Float32Array(n).fill(value).buffer) };
    };
    return writeSafetensors([
      tensor(`${layer}.lora_down.weight`, down),
      tensor(`${layer}.lora_up.weight`, up),
    ]);
  };

  it("when a LoRA is applied, then a LoRA of zeros gives the base output byte for byte, and a real one changes it for its run only", async () => {
    const input = PNG.sync.write(PNG.sync.read(renderImage("a lighthouse", 24, 24, 5)));
    const base = await upscale(input, "image/png");
    const zeros = await upscale(input, "image/png", {
      wts_zero: loraOf("SR", [2, 12, 3, 3], [3, 2, 1, 1], 0),
    });
    expect(Buffer.compare(zeros.png.data, base.png.data)).toBe(0);
    const styled = await upscale(
      input,
      "image/png",
      { wts_style: loraOf("SR", [2, 12, 3, 3], [3, 2, 1, 1], 0.05) },
      0.5,
    );
    expect(meanAbs(rgbOf(styled.png), rgbOf(base.png))).toBeGreaterThan(1);
    // The network's own kernels are back for the next run.
    const after = await upscale(input, "image/png");
    expect(Buffer.compare(after.png.data, base.png.data)).toBe(0);
  });

  it("when the catalogue lists the layers a LoRA may change, then they are the network's, each shape as its kernel has it", async () => {
    const catalogue = JSON.parse(
      await readFile(new URL("../../../catalogue/models.json", import.meta.url), "utf8"),
    ) as { models: { id: string; input_schema: unknown }[] };
    const entry = catalogue.models.find((m) => m.id === "acme/upscale")!;
    const field = loraFieldOf(entry.input_schema)!;
    expect(field.targets).toHaveLength(12);
    // A LoRA built from the listed shapes fits, and applies (the run does not fail).
    const target = field.targets!.find((t) => t.name === "UPN1")!;
    const down = target.down.map((d) => (d === "r" ? 2 : d));
    const up = target.up.map((d) => (d === "r" ? 2 : d));
    const bytes = loraOf("UPN1", down, up, 0.001);
    expect(
      loraMismatch(
        [
          { name: "UPN1.lora_down.weight", dtype: "F32", shape: down },
          { name: "UPN1.lora_up.weight", dtype: "F32", shape: up },
        ],
        field.targets!,
      ),
    ).toBeNull();
    const input = PNG.sync.write(PNG.sync.read(renderImage("a lighthouse", 16, 16, 5)));
    for (const t of field.targets!) {
      const d = t.down.map((x) => (x === "r" ? 1 : x));
      const u = t.up.map((x) => (x === "r" ? 1 : x));
      await expect(
        upscale(input, "image/png", { [`wts_${t.name}`]: loraOf(t.name, d, u, 0.0001) }),
      ).resolves.toBeDefined();
    }
    expect(bytes.length).toBeGreaterThan(0);
  });
});
