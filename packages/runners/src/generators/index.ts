// The built-in generators: image, audio and video rendered on this process's worker threads,
// upscale (a trained network, on the same threads), and echo (the input back, nothing rendered).
import type { RunnerKind } from "../registry.js";
import type { Runner } from "../runner.js";
import { audioRunner } from "./audio.js";
import { echoRunner } from "./echo.js";
import { bundledFfmpeg } from "./ffmpeg.js";
import { imageRunner } from "./image.js";
import { createRenderPool } from "./renderPool.js";
import { upscaleRunner } from "./upscale.js";
import { videoRunner } from "./video.js";

export const builtinKind: RunnerKind<"builtin"> = {
  create(options) {
    const pool = createRenderPool(options.generatorThreads);
    // Found on first use, so that a worker without a bundled ffmpeg (another platform) still runs
    // everything else.
    let ffmpeg = options.ffmpegPath;
    const ffmpegPath = () => (ffmpeg ??= bundledFfmpeg());
    const generators: Record<string, Runner> = {
      image: imageRunner(pool),
      audio: audioRunner(pool, ffmpegPath),
      video: videoRunner(pool, ffmpegPath),
      echo: echoRunner,
      upscale: upscaleRunner(pool),
    };
    return { for: (settings) => generators[settings.generator]!, close: () => pool.close() };
  },
};
