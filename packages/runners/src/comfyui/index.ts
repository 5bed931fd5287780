// The ComfyUI kind of model server: a workflow per model, its runner and health check.
import type { RunnerKind } from "../registry.js";
import { createComfyRunner } from "./comfyRunner.js";
import { comfyServerUp } from "./health.js";

export const comfyUIKind: RunnerKind<"comfyui"> = {
  create(options) {
    const runner = createComfyRunner({
      maxOutputBytes: options.maxOutputBytes ?? 500 * 1024 * 1024,
      ...(options.slots && { slots: options.slots }),
      ...(options.log && { log: options.log }),
    });
    return { for: () => runner, close: async () => runner.close() };
  },
  serverUp: (_settings, server, timeoutMs) => comfyServerUp(server, timeoutMs),
};
