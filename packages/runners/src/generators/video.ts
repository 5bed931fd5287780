import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import gifenc from "gifenc";
import { abortableDelay, RunnerError, type Runner } from "../runner.js";
import { inputSeed, prng, wordColours } from "../random.js";
import { VIDEO_SIZES } from "@svc/core";
import { runFfmpeg } from "./ffmpeg.js";
import { coverImage, decodeImage } from "./pixels.js";
import type { RenderPool } from "./renderPool.js";

export { VIDEO_SIZES };

export interface ClipSpec {
  prompt: string;
  width: number;
  height: number;
  seconds: number;
  fps: number;
  seed: number;
  /** An image (PNG or JPEG bytes) the clip starts from: its first frame, fading into the motion. */
  firstFrame?: Uint8Array;
}

const frameCount = (clip: ClipSpec) => Math.max(1, Math.round(clip.seconds * clip.fps));

/**
 * Frames `from` to `to` (exclusive) of the clip, RGBA, one after the other: the prompt's colours
 * as discs crossing a gradient. Each frame depends only on the clip and its index, so a clip can
 * be drawn in pieces (on several threads, or while the encoder works).
 */
export function drawFrames(clip: ClipSpec, from: number, to: number): Uint8Array {
  const { width, height } = clip;
  const random = prng(clip.seed);
  const discs = wordColours(clip.prompt).map((colour) => ({
    colour,
    y: random() * height,
    speed: 0.2 + random(),
    r: 8 + random() * 24,
    x0: random(),
  }));
  const frames = frameCount(clip);
  const size = width * height * 4;
  const out = new Uint8Array(size * (to - from));
  // The first frame is the image itself; it gives way to the motion over the clip's first half.
  const still = clip.firstFrame && coverImage(decodeImage(clip.firstFrame), width, height);
  for (let f = from; f < to; f++) {
    const t = f / frames;
    const kept = still ? Math.max(0, 1 - 2 * t) : 0;
    const base = (f - from) * size;
    const centres = discs.map((d) => ((((d.x0 + t * d.speed) % 1) + 1) % 1) * width);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = base + (y * width + x) * 4;
        let [r, g, b] = [(x / width) * 255, (y / height) * 255, 128];
        discs.forEach((d, k) => {
          if ((x - centres[k]!) ** 2 + (y - d.y) ** 2 < d.r * d.r) [r, g, b] = d.colour;
        });
        const o = (y * width + x) * 4;
        out[i] = still ? still[o]! * kept + r * (1 - kept) : r;
        out[i + 1] = still ? still[o + 1]! * kept + g * (1 - kept) : g;
        out[i + 2] = still ? still[o + 2]! * kept + b * (1 - kept) : b;
        out[i + 3] = 255;
      }
    }
  }
  return out;
}

/** The clip as an animated GIF (one palette, from the first frame). */
export function renderGif(clip: ClipSpec): Uint8Array {
  const gif = gifenc.GIFEncoder();
  let palette: ReturnType<typeof gifenc.quantize> | undefined;
  for (let f = 0; f < frameCount(clip); f++) {
    const rgba = drawFrames(clip, f, f + 1);
    palette ??= gifenc.quantize(rgba, 256);
    gif.writeFrame(gifenc.applyPalette(rgba, palette), clip.width, clip.height, {
      palette,
      delay: Math.round(1000 / clip.fps),
    });
  }
  gif.finish();
  return gif.bytes();
}

// Frames drawn per task on the pool: one second of video at most, so that encoding overlaps drawing.
const FRAMES_PER_TASK = 24;

/**
 * The clip as H.264 in MP4 (yuv420p, main profile, moov first so that players start at once),
 * written to `path`: frames are drawn on the pool's threads and piped to ffmpeg.
 */
export async function encodeMp4(
  ffmpeg: string,
  pool: RenderPool,
  clip: ClipSpec,
  path: string,
  signal: AbortSignal,
): Promise<void> {
  const frames = frameCount(clip);
  const draw = (from: number) => {
    const piece = pool.render(
      { kind: "frames", clip, from, to: Math.min(frames, from + FRAMES_PER_TASK) },
      signal,
    );
    piece.catch(() => {}); // awaited below, unless ffmpeg has stopped reading
    return piece;
  };
  async function* chunks() {
    // The next piece is drawn while ffmpeg encodes this one.
    let next = draw(0);
    for (let from = 0; from < frames; from += FRAMES_PER_TASK) {
      const piece = await next;
      if (from + FRAMES_PER_TASK < frames) next = draw(from + FRAMES_PER_TASK);
      yield piece;
    }
  }
  const size = `${clip.width}x${clip.height}`;
  const args = ["-f", "rawvideo", "-pix_fmt", "rgba", "-s", size, "-r", String(clip.fps), "-i", "pipe:0"];
  const encode = ["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-pix_fmt", "yuv420p"];
  await runFfmpeg(
    ffmpeg,
    [...args, ...encode, "-movflags", "+faststart", "-f", "mp4", path],
    chunks(),
    signal,
  ).done;
}

export const VIDEO_FORMATS = ["mp4", "gif"] as const;

export const videoRunner = (pool: RenderPool, ffmpeg: () => string): Runner => ({
  async run({ input, settings, signal, outputs, progress, inputFile }) {
    // Image to video: the clip starts from the image given (a file input), if any.
    let firstFrame: Uint8Array | undefined;
    if (input.first_frame !== undefined) {
      const file = await inputFile?.(String(input.first_frame));
      if (!file)
        throw new RunnerError("INPUT_FILE_UNAVAILABLE", "The run's first frame is no longer stored.");
      firstFrame = file.bytes;
    }
    const [width, height] = VIDEO_SIZES[String(input.video_size)] ?? VIDEO_SIZES.landscape_16_9!;
    const seconds = Number(input.duration_seconds ?? 3);
    await abortableDelay(settings.kind === "builtin" ? settings.delay_ms : 0, signal);
    const clip = {
      prompt: String(input.prompt),
      width,
      height,
      seconds,
      fps: Number(input.fps ?? 8),
      seed: inputSeed(input),
      ...(firstFrame && { firstFrame }),
    };
    let url: string;
    if (input.format === "gif") {
      url = await outputs.save("video.gif", await pool.render({ kind: "gif", clip }, signal), signal);
    } else {
      // ffmpeg writes the index (moov) first only into a file it can seek; the file is then
      // streamed into the store.
      const dir = await mkdtemp(join(tmpdir(), "svc-video-"));
      try {
        await encodeMp4(ffmpeg(), pool, clip, join(dir, "video.mp4"), signal);
        url = await outputs.save("video.mp4", createReadStream(join(dir, "video.mp4")), signal);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    progress({ completed: seconds, total: seconds });
    return { output: { video: [url] } };
  },
});
