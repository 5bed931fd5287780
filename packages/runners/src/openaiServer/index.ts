// The OpenAI-style media server kind (vLLM-Omni, SGLang, LocalAI): its runner and health check.
import type { RunnerKind } from "../registry.js";
import { createOpenAIServerRunner } from "./openAIServerRunner.js";
import { openAIServerUp } from "./health.js";

export const openAIServerKind: RunnerKind<"openai"> = {
  create(options) {
    const runner = createOpenAIServerRunner({
      secretsKey: options.secretsKey,
      allowPrivateOutputs: options.allowPrivateOutputs ?? false,
      maxOutputBytes: options.maxOutputBytes ?? 500 * 1024 * 1024,
      ...(options.log && { log: options.log }),
      ...(options.slots && { slots: options.slots }),
      ...(options.notes && { notes: options.notes }),
    });
    return { for: () => runner };
  },
  serverUp: openAIServerUp,
};
