// The seam between kinds of model server and the rest of the service. Each kind of runner (the
// catalogue's runner.kind) answers, from its settings alone, the questions the scheduler, billing
// and events ask: where its runs get capacity, whether they cost compute, whether they take any
// time at all, what its outputs are counted in. A new kind (ComfyUI, an OpenAI-style server) is
// a settings schema in catalogue.ts, an entry here, and a runner in packages/runners (a folder and
// a registration); nothing that schedules, charges or streams learns its name.
import type { RunnerSettings } from "./catalogue.js";
import type { OutputKind } from "./pricing.js";
import type { PoolSpec } from "./scheduling.js";
import { OPENAI_SERVER_OUTPUT } from "./openaiServer.js";

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
   * Whether a leased run executes in the worker that leased its slot, its job only a backstop
   * (taken over if that worker stops renewing it). For servers whose answer comes back on the
   * request that sent the work (an OpenAI-style server, ComfyUI's socket), so that no job hop
   * and no other worker stand between a freed slot and its next piece of work. Cog needs none:
   * its prediction is sent by the leasing worker and its result reaches any worker by webhook.
   */
  executesWhereLeased: boolean;
}

type TraitsOf = {
  [K in RunnerSettings["kind"]]: (settings: Extract<RunnerSettings, { kind: K }>) => RunnerTraits;
};

const TRAITS: TraitsOf = {
  // The built-in generators render on the workers' threads; echo renders nothing (the input comes
  // back as the output): its runs need no capacity, cost nothing and, without a simulated delay,
  // take no time. The catalogue's acme/echo is the model that takes the instant path.
  builtin: (s) => {
    const free = s.generator === "echo";
    return {
      pool: free ? null : { kind: "workers" },
      costsCompute: !free,
      instant: free && s.delay_ms === 0,
      output: s.generator === "upscale" ? "image" : s.generator,
      files: "ids",
      // A worker renders its own share of the render threads: any worker may take a run.
      executesWhereLeased: false,
    };
  },
  // Model servers, each with `concurrency` slots, a slot bound to its server.
  cog: (s) => ({
    pool: {
      kind: "servers",
      servers: s.servers,
      concurrency: s.concurrency,
      healthIntervalMs: s.health_interval_ms,
    },
    costsCompute: true,
    instant: false,
    output: s.output,
    files: "urls",
    executesWhereLeased: false,
  }),
  // OpenAI-style media servers, each with `concurrency` slots. An image edit's file goes in a
  // multipart form, which the worker builds from the file's bytes; a video's reference image is
  // given to the server as a URL.
  openai: (s) => ({
    pool: {
      kind: "servers",
      servers: s.servers,
      concurrency: s.concurrency,
      healthIntervalMs: s.health_interval_ms,
    },
    costsCompute: true,
    instant: false,
    output: OPENAI_SERVER_OUTPUT[s.api],
    files: s.api === "videos" ? "urls" : "ids",
    executesWhereLeased: true,
  }),
  // ComfyUI servers run one prompt at a time from their own FIFO queue: one slot each, so that
  // runs wait in our fair queue, never in theirs. Input images are uploaded to the server's
  // /upload/image by the worker, from the files' bytes.
  comfyui: (s) => ({
    pool: { kind: "servers", servers: s.servers, concurrency: 1, healthIntervalMs: s.health_interval_ms },
    costsCompute: true,
    instant: false,
    output: s.output,
    files: "ids",
    executesWhereLeased: true,
  }),
};

export const traitsOf = (settings: RunnerSettings): RunnerTraits =>
  (TRAITS[settings.kind] as (s: RunnerSettings) => RunnerTraits)(settings);

export const poolOf = (settings: RunnerSettings): PoolSpec => traitsOf(settings).pool;
export const costsCompute = (settings: RunnerSettings): boolean => traitsOf(settings).costsCompute;
export const isInstant = (settings: RunnerSettings): boolean => traitsOf(settings).instant;
export const outputKindOf = (settings: RunnerSettings): OutputKind => traitsOf(settings).output;
