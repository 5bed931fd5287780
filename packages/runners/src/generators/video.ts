import gifenc from "gifenc";
import { abortableDelay, type Runner } from "../runner.js";
import { inputSeed, prng, wordColours } from "../random.js";
import type { RenderPool } from "./renderPool.js";

export const VIDEO_SIZES: Record<string, [number, number]> = {
  landscape_16_9: [320, 180],
  square: [240, 240],
  portrait_16_9: [180, 320],
};

/** An animated GIF: the prompt's colours as discs crossing a gradient, fps x seconds frames. */
export function renderGif(
  prompt: string,
  width: number,
  height: number,
  seconds: number,
  fps: number,
  seed: number,
): Uint8Array {
  const colours = wordColours(prompt);
  const random = prng(seed);
  const discs = colours.map((colour) => ({
    colour,
    y: random() * height,
    speed: 0.2 + random(),
    r: 8 + random() * 24,
    x0: random(),
  }));
  const frames = Math.max(1, Math.round(seconds * fps));
  const gif = gifenc.GIFEncoder();
  const rgba = new Uint8Array(width * height * 4);
  let palette: ReturnType<typeof gifenc.quantize> | undefined;
  for (let f = 0; f < frames; f++) {
    const t = f / frames;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        let [r, g, b] = [(x / width) * 255, (y / height) * 255, 128];
        for (const d of discs) {
          const cx = ((((d.x0 + t * d.speed) % 1) + 1) % 1) * width;
          if ((x - cx) ** 2 + (y - d.y) ** 2 < d.r * d.r) [r, g, b] = d.colour;
        }
        rgba[i] = r;
        rgba[i + 1] = g;
        rgba[i + 2] = b;
        rgba[i + 3] = 255;
      }
    }
    palette ??= gifenc.quantize(rgba, 256);
    gif.writeFrame(gifenc.applyPalette(rgba, palette), width, height, {
      palette,
      delay: Math.round(1000 / fps),
    });
  }
  gif.finish();
  return gif.bytes();
}

export const videoRunner = (pool: RenderPool): Runner => ({
  async run({ input, settings, signal, outputs, progress }) {
    const [width, height] = VIDEO_SIZES[String(input.video_size)] ?? VIDEO_SIZES.landscape_16_9!;
    const seconds = Number(input.duration_seconds ?? 3);
    await abortableDelay(settings.kind === "builtin" ? settings.delay_ms : 0, signal);
    const task = {
      kind: "video" as const,
      prompt: String(input.prompt),
      width,
      height,
      seconds,
      fps: Number(input.fps ?? 8),
      seed: inputSeed(input),
    };
    const bytes = await pool.render(task, signal);
    progress({ completed: seconds, total: seconds });
    return { units: seconds, output: { video: [await outputs.save("video.gif", bytes)] } };
  },
});
