// The OpenAI-style media server kind (vLLM-Omni, SGLang, LocalAI): its runner and health check.
import type { RunnerKind } from "../registry.js";
import { createOpenAIRunner } from "./openaiRunner.js";
import { openAIServerUp } from "./health.js";

export const openAIKind: RunnerKind<"openai"> = {
  create(options) {
    const runner = createOpenAIRunner({
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
