export * from "./runner.js";
export { createCogRunner, type CogCallbacks, type CogResults, type CogRunnerDeps } from "./cog/cogRunner.js";
export { outputOfKind, copyOutputs } from "./outputs.js";
export { cogFetchPolicy } from "./cog/outputPolicy.js";
export { IMAGE_SIZES, renderImage } from "./generators/image.js";
export { AUDIO_FORMATS, renderWav } from "./generators/audio.js";
export { VIDEO_FORMATS, VIDEO_SIZES, drawFrames, renderGif, type ClipSpec } from "./generators/video.js";
export { createRunners, serverUp, type Runners, type RunnersOptions, type ServerHealth } from "./registry.js";
