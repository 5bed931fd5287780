// acme/upscale: a trained super-resolution network, not a drawing. The network is UpscalerJS's
// default model (@upscalerjs/default-model, MIT: an RDN of the ESRGAN family, x2, ~0.9 MB of
// weights in the package), run by TensorFlow.js on its WebAssembly backend (the .wasm files ship
// in @tensorflow/tfjs-backend-wasm; nothing is downloaded at install or at run time). It runs on
// the render threads (upscaleImage) and is loaded once per thread, on its first image.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PNG } from "pngjs";
import { abortableDelay, RunnerError, type RunContext, type Runner } from "../runner.js";
import { decodeImage } from "./pixels.js";
import { loraDeltas, type LoraBytes } from "./lora.js";
import type { RenderPool } from "./renderPool.js";

const require = createRequire(import.meta.url);
/** The network's scale: each side of the output is this many times the input's. */
export const UPSCALE_FACTOR = 2;

type Tf = typeof import("@tensorflow/tfjs-core");
type LayersModel = import("@tensorflow/tfjs-layers").LayersModel;
type Tensor = import("@tensorflow/tfjs-core").Tensor;
let loaded: Promise<{ tf: Tf; model: LayersModel }> | undefined;

/** TensorFlow.js on WebAssembly and the network, once per thread. */
function network() {
  loaded ??= (async () => {
    const tf = await import("@tensorflow/tfjs-core");
    const layers = await import("@tensorflow/tfjs-layers");
    const wasm = await import("@tensorflow/tfjs-backend-wasm");
    wasm.setWasmPaths(
      `${dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm"))}/`,
    );
    // One thread of WebAssembly per render thread: the pool is the parallelism.
    wasm.setThreadsCount(1);
    await tf.setBackend("wasm");
    // The package's exports name its JavaScript only: its model files are found beside it.
    const main = require.resolve("@upscalerjs/default-model");
    const dir = join(main.slice(0, main.lastIndexOf("/dist/")), "models");
    const json = JSON.parse(readFileSync(join(dir, "model.json"), "utf8")) as {
      modelTopology: object;
      weightsManifest: { paths: string[]; weights: never[] }[];
    };
    const weights = Buffer.concat(
      json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(dir, p)))),
    );
    const model = await layers.loadLayersModel(
      tf.io.fromMemory({
        modelTopology: json.modelTopology,
        weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      }),
    );
    return { tf, model };
  })();
  return loaded;
}

/** An image's RGB pixels (alpha dropped), from PNG or JPEG bytes. */
function decode(bytes: Uint8Array): { width: number; height: number; rgb: Float32Array } {
  const { width, height, rgba } = decodeImage(bytes);
  const rgb = new Float32Array(width * height * 3);
  for (let i = 0, j = 0; i < width * height * 4; i += 4, j += 3) {
    rgb[j] = rgba[i]!;
    rgb[j + 1] = rgba[i + 1]!;
    rgb[j + 2] = rgba[i + 2]!;
  }
  return { width, height, rgb };
}

/**
 * The network with the run's LoRAs added to its kernels while `work` runs, then its own kernels
 * back (one render at a time per thread, so no other image sees them).
 */
async function withLoras<T>(
  { tf, model }: { tf: Tf; model: LayersModel },
  loras: readonly LoraBytes[],
  work: () => Promise<T>,
): Promise<T> {
  if (!loras.length) return work();
  // getWeights answers the layer's own variables: the kernel is copied before it is changed.
  const restore: { layer: ReturnType<LayersModel["getLayer"]>; kernel: Tensor; rest: Tensor[] }[] = [];
  try {
    for (const [name, { delta, shape }] of loraDeltas(loras)) {
      const layer = model.getLayer(name);
      const [kernel, ...rest] = layer.getWeights();
      const original = tf.clone(kernel!);
      restore.push({ layer, kernel: original, rest });
      const patched = tf.tidy(() => tf.add(original, tf.tensor(delta, shape)));
      layer.setWeights([patched, ...rest]);
      patched.dispose();
    }
    return await work();
  } finally {
    for (const { layer, kernel, rest } of restore) {
      layer.setWeights([kernel, ...rest]);
      kernel.dispose();
    }
  }
}

/**
 * The image (PNG or JPEG) at twice its size, as a PNG: the network's work, on this thread, with
 * the run's LoRAs applied to it (a LoRA of zeros changes nothing, byte for byte).
 */
export async function upscaleImage(bytes: Uint8Array, loras: readonly LoraBytes[] = []): Promise<Uint8Array> {
  const net = await network();
  const { tf, model } = net;
  const { width, height, rgb } = decode(bytes);
  const out = await withLoras(net, loras, async () =>
    tf.tidy(() => {
      const predicted = model.predict(tf.tensor4d(rgb, [1, height, width, 3])) as Tensor;
      return tf.cast(tf.round(tf.clipByValue(predicted, 0, 255)), "int32");
    }),
  );
  const values = await out.data();
  out.dispose();
  const [w, h] = [width * UPSCALE_FACTOR, height * UPSCALE_FACTOR];
  const png = new PNG({ width: w, height: h, colorType: 2, inputColorType: 2, inputHasAlpha: false });
  png.data = Buffer.from(Uint8Array.from(values));
  return PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false });
}

/** The run's LoRAs' bytes (their weights were checked when the run was made), with their scales. */
async function lorasOf(input: Record<string, unknown>, weights: RunContext["weights"]): Promise<LoraBytes[]> {
  const loras = (input.loras ?? []) as { weights: string; scale: number }[];
  return Promise.all(
    loras.map(async ({ weights: id, scale }) => {
      const bytes = await weights?.(id);
      if (!bytes)
        throw new RunnerError(
          "INPUT_FILE_UNAVAILABLE",
          `The run's weights ${id} were deleted before it ran.`,
        );
      return { bytes, scale };
    }),
  );
}

/**
 * The upscale generator: one image in (a file input, `image`), that image at twice the size out,
 * by the network with the run's LoRAs (input.loras) applied.
 */
export const upscaleRunner = (pool: RenderPool): Runner => ({
  async run({ input, settings, signal, outputs, progress, inputFile, weights }) {
    const file = await inputFile?.(String(input.image));
    if (!file) throw new RunnerError("INPUT_FILE_UNAVAILABLE", "The run's image is no longer stored.");
    const loras = await lorasOf(input, weights);
    if (file.contentType !== "image/png" && file.contentType !== "image/jpeg")
      throw new RunnerError(
        "INVALID_INPUT",
        `acme/upscale takes PNG or JPEG images, not ${file.contentType}.`,
      );
    await abortableDelay(settings.kind === "builtin" ? settings.delay_ms : 0, signal);
    const bytes = await pool.render({ kind: "upscale", image: file.bytes, loras }, signal);
    const url = await outputs.save("0.png", bytes, signal);
    progress({ completed: 1, total: 1, output: { images: [url] } });
    return { output: { images: [url] } };
  },
});
