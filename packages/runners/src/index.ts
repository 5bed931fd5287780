import type { RunnerSettings } from "@svc/core";
import { audioRunner } from "./generators/audio.js";
import { imageRunner } from "./generators/image.js";
import { videoRunner } from "./generators/video.js";
import { RunnerError, type Runner } from "./runner.js";

export * from "./runner.js";
export * from "./storage.js";
export { IMAGE_SIZES, renderImage } from "./generators/image.js";
export { renderWav } from "./generators/audio.js";
export { VIDEO_SIZES, renderGif } from "./generators/video.js";

const BUILTIN: Record<string, Runner> = { image: imageRunner, audio: audioRunner, video: videoRunner };

/** The runner named by a model's catalogue entry. */
export function runnerFor(settings: RunnerSettings): Runner {
  if (settings.kind === "builtin") return BUILTIN[settings.generator]!;
  throw new RunnerError("INTERNAL_ERROR", `runner kind ${settings.kind} is not available in this build`);
}
