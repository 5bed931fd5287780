import { abortableDelay, type Runner } from "../runner.js";

/**
 * The hello-world model: no file, no work, its output is its input. For trying an integration
 * end to end (webhooks, polling, SDK) and as the benchmarks' no-op model.
 */
export const echoRunner: Runner = {
  async run({ input, settings, signal }) {
    await abortableDelay(settings.kind === "builtin" ? settings.delay_ms : 0, signal);
    return { output: { echo: input } };
  },
};
