// Runs in a worker thread (see renderPool.ts): the CPU-bound part of the built-in generators, so
// the worker's event loop stays free to pick up, start and settle other runs meanwhile.
import { renderWav } from "./audio.js";
import { renderImage } from "./image.js";
import type { LoraBytes } from "./lora.js";
import { upscaleImage } from "./upscale.js";
import { drawFrames, renderGif, type ClipSpec } from "./video.js";

export type RenderTask =
  | { kind: "image"; prompt: string; width: number; height: number; seed: number }
  | { kind: "audio"; prompt: string; seconds: number; seed: number }
  | { kind: "gif"; clip: ClipSpec }
  | { kind: "frames"; clip: ClipSpec; from: number; to: number }
  | { kind: "upscale"; image: Uint8Array; loras: LoraBytes[] };

export default function render(task: RenderTask): Uint8Array | Promise<Uint8Array> {
  switch (task.kind) {
    case "image":
      return renderImage(task.prompt, task.width, task.height, task.seed);
    case "audio":
      return renderWav(task.prompt, task.seconds, task.seed);
    case "gif":
      return renderGif(task.clip);
    case "frames":
      return drawFrames(task.clip, task.from, task.to);
    case "upscale":
      return upscaleImage(task.image, task.loras);
  }
}
