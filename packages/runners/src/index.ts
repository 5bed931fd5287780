import type { RunnerSettings } from "@svc/core";
import { audioRunner } from "./generators/audio.js";
import { imageRunner } from "./generators/image.js";
import { videoRunner } from "./generators/video.js";
import { createCogRunner, type CogRunnerDeps } from "./cog/cogRunner.js";
import { RunnerError, type Runner } from "./runner.js";

export * from "./runner.js";
export * from "./storage.js";
export { createCogRunner, type CogResults, type CogRunnerDeps } from "./cog/cogRunner.js";
export { fileReferences } from "./cog/outputs.js";
export { IMAGE_SIZES, renderImage } from "./generators/image.js";
export { renderWav } from "./generators/audio.js";
export { VIDEO_SIZES, renderGif } from "./generators/video.js";

const BUILTIN: Record<string, Runner> = { image: imageRunner, audio: audioRunner, video: videoRunner };

export interface Runners {
  /** The runner named by a model's catalogue entry. */
  for(settings: RunnerSettings): Runner;
}

/** The runners of this process: the built-in generators, and Cog when its callback is configured. */
export function createRunners(options: { cog?: CogRunnerDeps } = {}): Runners {
  const cog = options.cog ? createCogRunner(options.cog) : undefined;
  return {
    for(settings) {
      if (settings.kind === "builtin") return BUILTIN[settings.generator]!;
      if (!cog)
        throw new RunnerError(
          "INTERNAL_ERROR",
          "Cog models need COG_CALLBACK_URL to be configured on the worker.",
        );
      return cog;
    },
  };
}
