// Every kind of model server this process runs, by the catalogue's runner.kind: a kind is a folder
// (its runner, its health check) and an entry in KINDS. What schedules, charges and streams runs
// asks the kind's traits (core's runnerKinds.ts) and the runners here, never its name.
import type { RunnerSettings } from "@svc/core";
import type { CogCallbacks } from "./cog/cogRunner.js";
import { cogKind } from "./cog/index.js";
import { builtinKind } from "./generators/index.js";
import { openAIServerKind } from "./openaiServer/index.js";
import { comfyUIKind } from "./comfyui/index.js";
import type { Runner, RunNotes, ServerSlots } from "./runner.js";

export interface RunnersOptions {
  /**
   * The runs' places on their models' servers: a run gives its slot back as soon as its server
   * is done, and moves to another server's when its own dies. Kinds with servers need it.
   */
  slots?: ServerSlots;
  /** Where servers that report by webhook (Cog) send their results; without it they cannot run here. */
  callbacks?: CogCallbacks;
  /** PUBLIC_BASE_URL: output URLs of ours a server gives back (uploaded to the workers) are kept. */
  publicBaseUrl?: string;
  /** Where runners keep what re-attaching to a run's work after a crash takes (Redis, in the worker). */
  notes?: RunNotes;
  /** Opens model servers' sealed API keys (SECRETS_KEY). */
  secretsKey?: Buffer;
  /** Output URLs may point at loopback/private addresses other than the model's own servers. */
  allowPrivateOutputs?: boolean;
  /** The largest output file accepted (OUTPUT_MAX_BYTES). */
  maxOutputBytes?: number;
  /** Routine steps at debug; what an operator acts on (a server failing) at info. */
  log?(level: "debug" | "info", message: string, meta: Record<string, unknown>): void;
  /** Worker threads for the built-in generators' CPU work (0: one per core). */
  generatorThreads?: number;
  /** The ffmpeg of the video (MP4) and audio (MP3) generators; default: the npm-installed one. */
  ffmpegPath?: string;
}

type Kind = RunnerSettings["kind"];

/**
 * A model server as its health check found it: whether it takes runs, and why not in its own
 * words (Cog's STARTING, SETUP_FAILED, DEFUNCT, UNHEALTHY; an HTTP status; no answer), which the
 * operator console shows.
 */
export interface ServerHealth {
  up: boolean;
  state: string;
}
type SettingsOf<K extends Kind> = Extract<RunnerSettings, { kind: K }>;

/** A kind's runners as this process made them. */
export interface KindRunners<K extends Kind> {
  /** The runner for a model of this kind (start, progress, cancel, outputs: Runner). */
  for(settings: SettingsOf<K>): Runner;
  close?(): Promise<void>;
}

export interface RunnerKind<K extends Kind> {
  create(options: RunnersOptions): KindRunners<K>;
  /** For kinds whose runs go to model servers: whether a server takes runs now, and its state. */
  serverUp?(
    settings: SettingsOf<K>,
    server: string,
    timeoutMs: number,
    secretsKey?: Buffer,
  ): Promise<ServerHealth>;
}

const KINDS: { [K in Kind]: RunnerKind<K> } = {
  builtin: builtinKind,
  cog: cogKind,
  // The catalogue's runner.kind "openai": servers that speak OpenAI's media API (the kind, not our
  // OpenAI-compatible API at /openai/v1, which is an adapter in apps/api).
  openai: openAIServerKind,
  comfyui: comfyUIKind,
};

export interface Runners {
  /** The runner named by a model's catalogue entry. */
  for(settings: RunnerSettings): Runner;
  /** Stops what the kinds started (the generators' worker threads). */
  close(): Promise<void>;
}

/** The runners of this process, one set per kind. */
export function createRunners(options: RunnersOptions = {}): Runners {
  const made = Object.fromEntries(
    (Object.keys(KINDS) as Kind[]).map((kind) => [kind, KINDS[kind].create(options)]),
  ) as { [K in Kind]: KindRunners<K> };
  return {
    for: (settings) => (made[settings.kind] as KindRunners<Kind>).for(settings as never),
    close: async () => {
      await Promise.all(Object.values(made).map((kind) => kind.close?.()));
    },
  };
}

/** Whether a model's server takes runs now, as its kind checks it (false for a kind without servers). */
export const serverUp = (
  settings: RunnerSettings,
  server: string,
  timeoutMs: number,
  secretsKey?: Buffer,
): Promise<ServerHealth> =>
  (KINDS[settings.kind] as RunnerKind<Kind>).serverUp?.(settings as never, server, timeoutMs, secretsKey) ??
  Promise.resolve({ up: false, state: "no servers" });
