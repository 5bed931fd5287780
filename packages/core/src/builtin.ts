// The built-in generators as a kind of runner: image, video and audio renders on the workers'
// threads, echo (the input back as the output) and upscale (a trained network).
import { z } from "zod";
import { MODEL_CATEGORIES } from "./categories.js";
import type { RunnerTraits } from "./runnerKinds.js";

export const builtinRunnerSchema = z.strictObject({
  kind: z.literal("builtin"),
  // echo: no file, the input comes back as the output (a hello-world model, the benchmarks' no-op).
  // upscale: an image file in, the image at twice the size out (a trained network).
  generator: z.enum([...MODEL_CATEGORIES, "echo", "upscale"]),
  // Simulated execution time per unit, so that EXECUTING and cancel can be observed.
  delay_ms: z.int().min(0).default(0),
});

export type BuiltinSettings = z.infer<typeof builtinRunnerSchema>;

/**
 * Echo renders nothing: its runs need no capacity, cost nothing and, without a simulated delay,
 * take no time (the catalogue's acme/echo is the model that takes the instant path). The others
 * render on the workers' threads, a worker its own share of them: any worker may take a run.
 */
export function builtinTraits(s: BuiltinSettings): RunnerTraits {
  const free = s.generator === "echo";
  return {
    pool: free ? null : { kind: "workers" },
    costsCompute: !free,
    instant: free && s.delay_ms === 0,
    output: s.generator === "upscale" ? "image" : s.generator,
    files: "ids",
    weights: "ids",
    // The upscaler applies LoRAs to its own network, as many as its input takes.
    loraSlots: s.generator === "upscale" ? 8 : 0,
    executesWhereLeased: false,
  };
}
