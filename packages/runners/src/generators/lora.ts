// A LoRA's low-rank update applied to a network's convolution kernels (issue #60), the way kohya's
// LoRAs are applied to Stable Diffusion's: for each layer it names, W' = W + scale x (alpha / r) x
// up x down, with down [r, in, kh, kw] and up [out, r, 1, 1] (PyTorch's layout) added to the
// kernel in TensorFlow.js's [kh, kw, in, out]. Without alpha the factor is 1. Pure arithmetic on
// the weights' bytes: no code in them is ever run.
import { readSafetensorsHeader, type SafetensorsTensor } from "@svc/core";

/** One LoRA of a run: its safetensors bytes and its strength. */
export interface LoraBytes {
  bytes: Uint8Array;
  scale: number;
}

/** A tensor's values as 32-bit floats (F32, F16 and BF16, little-endian). */
function floats(bytes: Uint8Array, base: number, t: SafetensorsTensor): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset + base + t.begin, t.end - t.begin);
  const count = t.shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    if (t.dtype === "F32") out[i] = view.getFloat32(i * 4, true);
    else if (t.dtype === "BF16")
      out[i] = new Float32Array(new Uint32Array([view.getUint16(i * 2, true) << 16]).buffer)[0]!;
    else out[i] = halfToFloat(view.getUint16(i * 2, true));
  }
  return out;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** Each layer's update in TensorFlow.js's kernel layout [kh, kw, in, out], summed over the LoRAs. */
export function loraDeltas(
  loras: readonly LoraBytes[],
): Map<string, { delta: Float32Array; shape: number[] }> {
  const deltas = new Map<string, { delta: Float32Array; shape: number[] }>();
  for (const { bytes, scale } of loras) {
    const read = readSafetensorsHeader(bytes);
    if (read.kind !== "ok") throw new Error("the weights are not safetensors");
    const { tensors, headerBytes } = read.header;
    const named = new Map(tensors.map((t) => [t.name, t]));
    for (const down of tensors.filter((t) => t.name.endsWith(".lora_down.weight"))) {
      const layer = down.name.slice(0, -".lora_down.weight".length);
      const up = named.get(`${layer}.lora_up.weight`)!;
      const alpha = named.get(`${layer}.alpha`);
      const [rank, input, kh, kw] = down.shape as [number, number, number, number];
      const output = up.shape[0]!;
      const factor = scale * (alpha ? floats(bytes, headerBytes, alpha)[0]! / rank : 1);
      const d = floats(bytes, headerBytes, down);
      const u = floats(bytes, headerBytes, up);
      const entry = deltas.get(layer) ?? {
        delta: new Float32Array(kh * kw * input * output),
        shape: [kh, kw, input, output],
      };
      // delta[y][x][i][o] += factor * sum_r up[o][r] * down[r][i][y][x]
      for (let o = 0; o < output; o++)
        for (let r = 0; r < rank; r++) {
          const w = factor * u[o * rank + r]!;
          if (w === 0) continue;
          for (let i = 0; i < input; i++)
            for (let y = 0; y < kh; y++)
              for (let x = 0; x < kw; x++)
                entry.delta[((y * kw + x) * input + i) * output + o]! +=
                  w * d[((r * input + i) * kh + y) * kw + x]!;
        }
      deltas.set(layer, entry);
    }
  }
  return deltas;
}
