import { PNG } from "pngjs";
import { IMAGE_SIZES } from "@svc/core";
import { abortableDelay, type Runner } from "../runner.js";
import { inputSeed, prng, wordColours } from "../random.js";
import type { RenderPool } from "./renderPool.js";

export { IMAGE_SIZES };

/**
 * A picture made from the prompt: a gradient between the first two words' colours and one disc
 * per word, placed by the seed. Same prompt, size and seed: same bytes.
 */
export function renderImage(prompt: string, width: number, height: number, seed: number): Buffer {
  const colours = wordColours(prompt);
  const random = prng(seed);
  const from = colours[0]!;
  const to = colours[1] ?? [255 - from[0], 255 - from[1], 255 - from[2]];
  const discs = colours.map((colour) => ({
    colour,
    x: random() * width,
    y: random() * height,
    r: (0.1 + random() * 0.4) * Math.min(width, height),
  }));
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const t = y / (height - 1);
    const r0 = from[0] * (1 - t) + to[0] * t;
    const g0 = from[1] * (1 - t) + to[1] * t;
    const b0 = from[2] * (1 - t) + to[2] * t;
    const rowStart = y * width * 3;
    for (let i = rowStart; i < rowStart + width * 3; i += 3) {
      data[i] = r0;
      data[i + 1] = g0;
      data[i + 2] = b0;
    }
    // Each disc blends its colour over the horizontal span it covers on this row.
    for (const d of discs) {
      const dy = y - d.y;
      if (dy * dy >= d.r * d.r) continue;
      const half = Math.sqrt(d.r * d.r - dy * dy);
      const x1 = Math.min(width, Math.ceil(d.x + half));
      for (let x = Math.max(0, Math.floor(d.x - half)); x < x1; x++) {
        const i = rowStart + x * 3;
        data[i] = (data[i]! + d.colour[0]) >> 1;
        data[i + 1] = (data[i + 1]! + d.colour[1]) >> 1;
        data[i + 2] = (data[i + 2]! + d.colour[2]) >> 1;
      }
    }
  }
  const png = new PNG({ width, height, colorType: 2, inputColorType: 2, inputHasAlpha: false });
  png.data = data;
  // The Sub filter suits these images (rows are runs of one colour): 5x faster than pngjs's
  // adaptive choice at 1024x1024 (8 ms vs 45 ms) for a file of about the same size.
  return PNG.sync.write(png, {
    colorType: 2,
    inputColorType: 2,
    inputHasAlpha: false,
    deflateLevel: 1,
    filterType: 1,
  });
}

export const imageRunner = (pool: RenderPool): Runner => ({
  async run({ input, settings, signal, outputs, progress }) {
    const [width, height] = IMAGE_SIZES[String(input.image_size)] ?? IMAGE_SIZES.square_hd!;
    const count = Number(input.num_images ?? 1);
    const delay = settings.kind === "builtin" ? settings.delay_ms : 0;
    const images: string[] = [];
    for (let i = 0; i < count; i++) {
      await abortableDelay(delay, signal);
      const prompt = String(input.prompt);
      const bytes = await pool.render(
        { kind: "image", prompt, width, height, seed: inputSeed(input) + i },
        signal,
      );
      images.push(await outputs.save(`${i}.png`, bytes, signal));
      progress({ completed: images.length, total: count, output: { images: [...images] } });
    }
    return { output: { images } };
  },
});
