import { namesFiles, openAIImagesSchema, serverOfSlot, type OpenAIServerSettings } from "@svc/core";
import { RunnerError, type RunContext, type Runner, type RunNotes, type RunResult } from "../runner.js";
import { outputOfKind, copyOutputs, type OutputFetchPolicy } from "../outputs.js";
import { EarlyRequests } from "../earlyRequests.js";
import { callServer, requestOf, ServerFailed, type Answer, type InputImage } from "./requests.js";
import { video } from "./videos.js";

export interface OpenAIServerRunnerDeps {
  /** Opens the models' sealed API keys (SECRETS_KEY). */
  secretsKey?: Buffer;
  allowPrivateOutputs: boolean;
  maxOutputBytes: number;
  /** Gives a run's slot back once its server has answered (the worker also does, at the run's end). */
  slots?: { release(runId: string): Promise<void> };
  /** Where a video job's id is kept, for the worker that takes the run over after a crash. */
  notes?: RunNotes;
  log?(level: "debug" | "info", message: string, meta: Record<string, unknown>): void;
}

/** What one run's steps share: its settings, its requests, where its outputs may come from. */
export interface OpenAIServerRun {
  deps: OpenAIServerRunnerDeps;
  s: OpenAIServerSettings;
  log: NonNullable<OpenAIServerRunnerDeps["log"]>;
  /** One request of the run (aborted with it). */
  call(server: string, path: string, init: Parameters<typeof callServer>[4]): Promise<Answer>;
  /** The run's first request (begin()'s, if it sent one). */
  first(server: string, image?: InputImage): Promise<Answer>;
  /** The server is done with the run: the next run goes there while this one's outputs are stored. */
  released(): Promise<void>;
  policy: OutputFetchPolicy;
}

async function images(run: OpenAIServerRun, ctx: RunContext, server: string): Promise<RunResult> {
  const fileFields = ctx.fileFields ?? [];
  const image = fileFields[0] && (await ctx.inputFile?.(String(ctx.input[fileFields[0]])));
  if (fileFields.length && !image)
    throw new RunnerError("INPUT_FILE_UNAVAILABLE", "The run's input file is no longer stored.");
  const res = await run.first(server, image || undefined);
  // An images answer is sent whole once the images are made: its headers say the server is free.
  await run.released();
  const parsed = openAIImagesSchema.safeParse(await res.body.json().catch(() => null));
  if (!parsed.success)
    throw new RunnerError("MODEL_ERROR", "the model server's answer is not an images response");
  const refs = parsed.data.data.map((d) =>
    d.b64_json ? `data:image/png;base64,${d.b64_json}` : (d.url ?? ""),
  );
  const urls = await copyOutputs(refs.filter(Boolean), ctx.outputs, ctx.signal, run.policy);
  ctx.progress({ completed: urls.length, total: urls.length, output: outputOfKind("image", urls) });
  return { output: outputOfKind("image", urls) };
}

async function speech(run: OpenAIServerRun, ctx: RunContext, server: string): Promise<RunResult> {
  const res = await run.first(server);
  const type = String(res.headers["content-type"] ?? "audio/mpeg");
  const bytes = Buffer.from(await res.body.arrayBuffer());
  await run.released();
  const max = run.deps.maxOutputBytes;
  if (bytes.length > max) throw new RunnerError("MODEL_ERROR", `a model output is larger than ${max} bytes`);
  const ref = `data:${type.split(";")[0]};base64,${bytes.toString("base64")}`;
  const urls = await copyOutputs([ref], ctx.outputs, ctx.signal, run.policy);
  return { output: outputOfKind("audio", urls) };
}

/**
 * Runs a model on OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI), on the server of the
 * slot the scheduler leased it. Images and speech are one request answered when made (canceled by
 * aborting it); an image input goes as images/edits' multipart form. A video is a job (videos.ts).
 * A 4xx is the input's fault (FAILED INVALID_INPUT, nothing charged); a server that fails or does
 * not answer fails the attempt, and the job is retried.
 */
export function createOpenAIServerRunner(deps: OpenAIServerRunnerDeps): Runner {
  const log = deps.log ?? (() => {});
  const early = new EarlyRequests<Answer>((answer) => answer.body.dump());

  const runOf = (ctx: RunContext, s: OpenAIServerSettings): OpenAIServerRun => ({
    deps,
    s,
    log,
    call: (server, path, init) => callServer(s, deps.secretsKey, server, path, init, ctx.signal),
    first: (server, image) =>
      early.first(ctx, () =>
        callServer(
          s,
          deps.secretsKey,
          server,
          ...requestOf(s, ctx.input, ctx.fileFields ?? [], image),
          ctx.signal,
        ),
      ),
    // Awaited before the answer is read: the next run's request leaves before this one's outputs
    // are decoded and stored on the same event loop.
    released: async () =>
      deps.slots
        ?.release(ctx.runId)
        .catch((error: unknown) => log("info", "slot release failed", { error: (error as Error).message })),
    policy: {
      allowPrivate: deps.allowPrivateOutputs,
      trustedOrigins: new Set(s.servers.map((server) => new URL(server).origin)),
      timeoutMs: s.request_timeout_ms,
      maxBytes: deps.maxOutputBytes,
    },
  });

  return {
    // The request leaves while the run's start is recorded; run() continues it in this process
    // (core's executesWhereLeased). Not for an input with files: those are read at the start.
    async begin({ runId, input, settings, slot }) {
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind !== "openai" || !server || namesFiles(input)) return false;
      early.send(runId, (signal) =>
        callServer(settings, deps.secretsKey, server, ...requestOf(settings, input, []), signal),
      );
      return true;
    },

    async abandon({ runId }) {
      early.claim(runId)?.controller.abort(new Error("the run needs no execution"));
    },

    async run(ctx) {
      if (ctx.settings.kind !== "openai")
        throw new RunnerError("INTERNAL_ERROR", "not an OpenAI-style model");
      const server = ctx.slot ? serverOfSlot(ctx.slot) : null;
      if (!server) throw new Error("an OpenAI-style model's run has no server slot");
      const run = runOf(ctx, ctx.settings);
      try {
        if (run.s.api === "images") return await images(run, ctx, server);
        if (run.s.api === "speech") return await speech(run, ctx, server);
        return await video(run, ctx, server);
      } catch (error) {
        if (error instanceof ServerFailed)
          log("info", "model server failed", { server, error: error.message });
        throw error;
      }
    },
  };
}
