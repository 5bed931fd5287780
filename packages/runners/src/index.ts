import type { RunnerSettings } from "@svc/core";
import { audioRunner } from "./generators/audio.js";
import { echoRunner } from "./generators/echo.js";
import { imageRunner } from "./generators/image.js";
import { createRenderPool } from "./generators/renderPool.js";
import { videoRunner } from "./generators/video.js";
import { bundledFfmpeg } from "./generators/ffmpeg.js";
import { createCogRunner, type CogRunnerDeps } from "./cog/cogRunner.js";
import { RunnerError, type Runner } from "./runner.js";

export * from "./runner.js";
export { createCogRunner, type CogResults, type CogRunnerDeps, type CogSlots } from "./cog/cogRunner.js";
export { cogFetchPolicy, cogOutput, copyOutputs } from "./cog/outputs.js";
export { IMAGE_SIZES, renderImage } from "./generators/image.js";
export { AUDIO_FORMATS, renderWav } from "./generators/audio.js";
export { VIDEO_FORMATS, VIDEO_SIZES, drawFrames, renderGif, type ClipSpec } from "./generators/video.js";

export interface Runners {
  /** The runner named by a model's catalogue entry. */
  for(settings: RunnerSettings): Runner;
  /** Stops the generators' worker threads. */
  close(): Promise<void>;
}

export interface RunnersOptions {
  cog?: CogRunnerDeps;
  /** Worker threads for the built-in generators' CPU work (0: one per core). */
  generatorThreads?: number;
  /** The ffmpeg of the video (MP4) and audio (MP3) generators; default: the npm-installed one. */
  ffmpegPath?: string;
}

/** The runners of this process: the built-in generators, and Cog when its callback is configured. */
export function createRunners(options: RunnersOptions = {}): Runners {
  const cog = options.cog ? createCogRunner(options.cog) : undefined;
  const pool = createRenderPool(options.generatorThreads);
  // Found on first use, so that a worker without a bundled ffmpeg (another platform) still runs
  // everything else.
  let ffmpeg = options.ffmpegPath;
  const ffmpegPath = () => (ffmpeg ??= bundledFfmpeg());
  const builtin: Record<string, Runner> = {
    image: imageRunner(pool),
    audio: audioRunner(pool, ffmpegPath),
    video: videoRunner(pool, ffmpegPath),
    echo: echoRunner,
  };
  return {
    close: () => pool.close(),
    for(settings) {
      if (settings.kind === "builtin") return builtin[settings.generator]!;
      if (!cog)
        throw new RunnerError(
          "INTERNAL_ERROR",
          "Cog models need COG_CALLBACK_URL to be configured on the worker.",
        );
      return cog;
    },
  };
}
