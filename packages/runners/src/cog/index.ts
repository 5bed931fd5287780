// The Cog kind of model server: its runner (a prediction per run, answered on its request or by
// webhook) and its health check.
import { RunnerError } from "../runner.js";
import type { RunnerKind } from "../registry.js";
import { createCogRunner } from "./cogRunner.js";
import { cogServerUp } from "./health.js";

export const cogKind: RunnerKind<"cog"> = {
  create(options) {
    const cog =
      options.callbacks &&
      options.slots &&
      createCogRunner({
        ...options.callbacks,
        slots: options.slots,
        allowPrivateOutputs: options.allowPrivateOutputs ?? false,
        maxOutputBytes: options.maxOutputBytes ?? 500 * 1024 * 1024,
        ...(options.publicBaseUrl && { publicBaseUrl: options.publicBaseUrl }),
        ...(options.log && { log: options.log }),
      });
    return {
      for() {
        if (!cog)
          throw new RunnerError(
            "INTERNAL_ERROR",
            "Cog models need COG_CALLBACK_URL to be configured on the worker.",
          );
        return cog;
      },
    };
  },
  serverUp: (_settings, server, timeoutMs) => cogServerUp(server, timeoutMs),
};
