// Runs in a worker thread (see renderPool.ts): the CPU-bound part of the built-in generators, so
// the worker's event loop stays free to pick up, start and settle other runs meanwhile.
import { renderWav } from "./audio.js";
import { renderImage } from "./image.js";
import { renderGif } from "./video.js";

export type RenderTask =
  | { kind: "image"; prompt: string; width: number; height: number; seed: number }
  | { kind: "audio"; prompt: string; seconds: number; seed: number }
  | {
      kind: "video";
      prompt: string;
      width: number;
      height: number;
      seconds: number;
      fps: number;
      seed: number;
    };

export default function render(task: RenderTask): Uint8Array {
  switch (task.kind) {
    case "image":
      return renderImage(task.prompt, task.width, task.height, task.seed);
    case "audio":
      return renderWav(task.prompt, task.seconds, task.seed);
    case "video":
      return renderGif(task.prompt, task.width, task.height, task.seconds, task.fps, task.seed);
  }
}
