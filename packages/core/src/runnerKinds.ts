// The seam between kinds of model server and the rest of the service. Each kind of runner (the
// catalogue's runner.kind) answers, from its settings alone, the questions the scheduler, billing
// and events ask: where its runs get capacity, whether they cost compute, whether they take any
// time at all, what its outputs are counted in. A new kind is a module of its own
// (its settings' schema and traits, as cog.ts), an entry in KINDS here, a runner folder in
// packages/runners (registry.ts) and an importer in use-cases (importers.ts); nothing that
// schedules, charges or streams learns its name.
import { z } from "zod";
import { builtinRunnerSchema, builtinTraits } from "./builtin.js";
import { cogRunnerSchema, cogTraits } from "./cog.js";
import { comfyUIRunnerSchema, comfyUITraits } from "./comfyui.js";
import { openAIServerRunnerSchema, openAIServerTraits } from "./openaiServer.js";
import type { OutputKind } from "./pricing.js";
import type { PoolSpec } from "./scheduling.js";

export interface RunnerTraits {
  /** Where its runs get capacity (null: unlimited, they start as soon as a worker is free). */
  pool: PoolSpec;
  /**
   * Whether a run costs real compute (a render, a model server). Test runs of such models are
   * free but bounded per account (TEST_RUNS_PER_DAY).
   */
  costsCompute: boolean;
  /**
   * Whether a run takes no execution time: nothing rendered, nothing waited for, no server. Such
   * a run is executed from its job before its start is recorded, and started and ended in one
   * transition (docs/architecture.md, "Instant runs").
   */
  instant: boolean;
  /** What its outputs are counted in (pricing.ts unitsDelivered). */
  output: OutputKind;
  /**
   * How its runner gets file inputs: by URL (a model server fetches a signed URL of our store) or
   * by id (the worker reads the file from the store itself, for runners on its own threads).
   */
  files: "urls" | "ids";
  /**
   * How its runner gets a run's LoRAs: by URL (a model server downloads them, and caches them by
   * URL) or by id (the worker reads their bytes, for a runner on its own threads).
   */
  weights: "urls" | "ids";
  /**
   * How many LoRAs a run may apply (its runner's slots for them; 0: the kind or model takes
   * none). A model whose input declares more (its `loras` field's maxItems) is refused.
   */
  loraSlots: number;
  /**
   * Whether a leased run executes in the worker that leased its slot, its job only a backstop
   * (taken over if that worker stops renewing it). For servers whose answer comes back on the
   * request that sent the work (an OpenAI-style server, ComfyUI's socket, a synchronous Cog
   * prediction), so that no job hop and no other worker stand between a freed slot and its next
   * piece of work. An asynchronous Cog prediction needs none: its result reaches any worker by
   * webhook.
   */
  executesWhereLeased: boolean;
}

/**
 * Every kind, registered once: its settings' schema (the catalogue's runner union is made of
 * them) and its traits. A new kind adds its module and one entry here.
 */
const KINDS = {
  builtin: { schema: builtinRunnerSchema, traits: builtinTraits },
  cog: { schema: cogRunnerSchema, traits: cogTraits },
  openai: { schema: openAIServerRunnerSchema, traits: openAIServerTraits },
  comfyui: { schema: comfyUIRunnerSchema, traits: comfyUITraits },
} as const;

export const runnerSchema = z.discriminatedUnion(
  "kind",
  Object.values(KINDS).map((k) => k.schema) as unknown as [
    (typeof KINDS)["builtin"]["schema"],
    (typeof KINDS)["cog"]["schema"],
    (typeof KINDS)["openai"]["schema"],
    (typeof KINDS)["comfyui"]["schema"],
  ],
);

export type RunnerSettings = z.infer<typeof runnerSchema>;

/** The kinds of runner: built-in generators, and the kinds of model server. */
export const RUNNER_KINDS = Object.keys(KINDS) as RunnerSettings["kind"][];

export const traitsOf = (settings: RunnerSettings): RunnerTraits =>
  (KINDS[settings.kind].traits as (s: RunnerSettings) => RunnerTraits)(settings);

export const poolOf = (settings: RunnerSettings): PoolSpec => traitsOf(settings).pool;
export const costsCompute = (settings: RunnerSettings): boolean => traitsOf(settings).costsCompute;
export const isInstant = (settings: RunnerSettings): boolean => traitsOf(settings).instant;
export const outputKindOf = (settings: RunnerSettings): OutputKind => traitsOf(settings).output;
