import { FormData, request, type Dispatcher } from "undici";
import { modelServers } from "../servers.js";
import {
  timeLimit,
  namesFiles,
  openAIImagesSchema,
  openAIServerBody,
  openAIVideoJobSchema,
  serverOfSlot,
  type OpenAIVideoJob,
  type OpenAIServerSettings,
} from "@svc/core";
import { abortableDelay, RunnerError, type RunContext, type Runner, type RunNotes } from "../runner.js";
import { outputOfKind, copyOutputs, type OutputFetchPolicy } from "../outputs.js";
import { authorization } from "./health.js";

export interface OpenAIRunnerDeps {
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

type Answer = Dispatcher.ResponseData;

/** The note (RunNotes) that keeps a run's video job: its server and id. */
const VIDEO_NOTE = "openai-video";

/** How long an early request's answer waits for its run to claim it. */
const UNCLAIMED_MS = 60_000;

/** A failure of the server rather than of the run's input: 5xx, 429, or no answer. */
class ServerFailed extends Error {}

/**
 * Runs a model on OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI), on the server of the
 * slot the scheduler leased it. Images and speech are one request answered when made (canceled by
 * aborting it); an image input goes as images/edits' multipart form. A video is a job: created,
 * polled (its progress becomes the run's), its content downloaded; a cancel deletes it on the
 * server. A 4xx is the input's fault (FAILED INVALID_INPUT, nothing charged); a server that fails
 * or does not answer fails the attempt, and the job is retried.
 */
export function createOpenAIRunner(deps: OpenAIRunnerDeps): Runner {
  const log = deps.log ?? (() => {});
  /** The server is done with the run: the next run goes there while this one's outputs are stored. */
  // Awaited before the answer is read: the next run's request leaves before this one's outputs are
  // decoded and stored on the same event loop.
  const released = async (runId: string) =>
    deps.slots
      ?.release(runId)
      .catch((error: unknown) => log("info", "slot release failed", { error: (error as Error).message }));
  const policy = (s: OpenAIServerSettings): OutputFetchPolicy => ({
    allowPrivate: deps.allowPrivateOutputs,
    trustedOrigins: new Set(s.servers.map((server) => new URL(server).origin)),
    timeoutMs: s.request_timeout_ms,
    maxBytes: deps.maxOutputBytes,
  });

  async function call(
    s: OpenAIServerSettings,
    server: string,
    path: string,
    init: { method?: string; body?: FormData; json?: unknown },
    signal: AbortSignal,
  ): Promise<Answer> {
    let res: Answer;
    // The limit covers the answer and its body, and is cleared once the body is over.
    const limit = timeLimit(s.request_timeout_ms, signal);
    try {
      // undici's request rather than fetch: a fraction of its cost per call, on the idle gap's path.
      res = await request(new URL(path, `${server}/`), {
        dispatcher: modelServers,
        method: init.method ?? (init.body || init.json ? "POST" : "GET"),
        headers: {
          ...authorization(s, deps.secretsKey),
          ...(init.json !== undefined && { "content-type": "application/json" }),
        },
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
        signal: limit.signal,
      });
      res.body.once("close", limit.clear);
    } catch (error) {
      limit.clear();
      signal.throwIfAborted();
      throw new ServerFailed(`${server}: ${(error as Error).message}`);
    }
    const status = res.statusCode;
    if (status >= 200 && status < 300) return res;
    const text = (await res.body.text().catch(() => "")).slice(0, 500);
    if (status >= 500 || status === 429 || status === 409)
      throw new ServerFailed(`${server}${path} answered ${status}: ${text}`);
    // The model's settings, not the run's input: its key, its model name.
    if (status === 401 || status === 403 || status === 404)
      throw new RunnerError("MODEL_ERROR", `the model server refused the model (${status}): ${text}`);
    throw new RunnerError("INVALID_INPUT", `the model server refused the request (${status}): ${text}`);
  }

  /**
   * The request that hands a run's work to its server: images/generations (or images/edits, a
   * multipart form, for an image input), audio/speech, or the video job's creation (a form, as
   * OpenAI's clients send it, a reference image as its URL: a signed one of ours).
   */
  function requestOf(
    s: OpenAIServerSettings,
    input: Record<string, unknown>,
    fileFields: readonly string[],
    image?: { bytes: Uint8Array; contentType: string },
  ): [string, { body?: FormData; json?: unknown }] {
    const body = openAIServerBody(s, input, fileFields);
    if (s.api === "speech") return ["v1/audio/speech", { json: body }];
    if (s.api === "images" && !image) return ["v1/images/generations", { json: body }];
    const form = new FormData();
    for (const [k, v] of Object.entries(body)) if (v !== undefined) form.set(k, String(v));
    if (image) {
      form.set("image", new Blob([image.bytes], { type: image.contentType }), "image");
      return ["v1/images/edits", { body: form }];
    }
    const reference = fileFields[0] && input[fileFields[0]];
    if (typeof reference === "string") form.set("input_reference[image_url]", reference);
    return ["v1/videos", { body: form }];
  }

  /**
   * Requests sent by begin() before their runs' starts committed, by run id, until run() (or
   * abandon()) claims them; one never claimed (its run failed to start here) is forgotten a while
   * after its answer.
   */
  const sent = new Map<string, { answer: Promise<Answer>; controller: AbortController }>();
  const claim = (runId: string) => {
    const early = sent.get(runId);
    sent.delete(runId);
    return early;
  };

  /** The run's first request: the one begin() sent, or sent now. */
  async function first(
    ctx: RunContext,
    s: OpenAIServerSettings,
    server: string,
    fileFields: readonly string[],
    image?: { bytes: Uint8Array; contentType: string },
  ): Promise<Answer> {
    const early = ctx.fresh && ctx.begun && (await ctx.begun) ? claim(ctx.runId) : undefined;
    if (!early) return call(s, server, ...requestOf(s, ctx.input, fileFields, image), ctx.signal);
    const onAbort = () => early.controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await early.answer;
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  async function images(
    ctx: RunContext,
    s: OpenAIServerSettings,
    server: string,
    fileFields: readonly string[],
  ) {
    const image = fileFields[0] && (await ctx.inputFile?.(String(ctx.input[fileFields[0]])));
    if (fileFields.length && !image)
      throw new RunnerError("INPUT_FILE_UNAVAILABLE", "The run's input file is no longer stored.");
    const res = await first(ctx, s, server, fileFields, image || undefined);
    // An images answer is sent whole once the images are made: its headers say the server is free.
    await released(ctx.runId);
    const answer: unknown = await res.body.json().catch(() => null);
    const parsed = openAIImagesSchema.safeParse(answer);
    if (!parsed.success)
      throw new RunnerError("MODEL_ERROR", "the model server's answer is not an images response");
    const refs = parsed.data.data.map((d) =>
      d.b64_json ? `data:image/png;base64,${d.b64_json}` : (d.url ?? ""),
    );
    const urls = await copyOutputs(refs.filter(Boolean), ctx.outputs, ctx.signal, policy(s));
    ctx.progress({ completed: urls.length, total: urls.length, output: outputOfKind("image", urls) });
    return { output: outputOfKind("image", urls) };
  }

  async function speech(ctx: RunContext, s: OpenAIServerSettings, server: string) {
    const res = await first(ctx, s, server, []);
    const type = String(res.headers["content-type"] ?? "audio/mpeg");
    const bytes = Buffer.from(await res.body.arrayBuffer());
    await released(ctx.runId);
    if (bytes.length > deps.maxOutputBytes)
      throw new RunnerError("MODEL_ERROR", `a model output is larger than ${deps.maxOutputBytes} bytes`);
    const ref = `data:${type.split(";")[0]};base64,${bytes.toString("base64")}`;
    const urls = await copyOutputs([ref], ctx.outputs, ctx.signal, policy(s));
    return { output: outputOfKind("audio", urls) };
  }

  /**
   * The video job an earlier attempt of the run created (its worker died), as its server has it
   * now; null when there is none, or the server no longer knows it (it is created again).
   */
  async function videoOfEarlierAttempt(ctx: RunContext, s: OpenAIServerSettings) {
    const note = await deps.notes?.get(ctx.runId, VIDEO_NOTE);
    const known = note ? (JSON.parse(note) as { server?: unknown; id?: unknown }) : {};
    if (typeof known.server !== "string" || typeof known.id !== "string" || !s.servers.includes(known.server))
      return null;
    try {
      const res = await call(s, known.server, `v1/videos/${encodeURIComponent(known.id)}`, {}, ctx.signal);
      const job = openAIVideoJobSchema.safeParse(await res.body.json().catch(() => null));
      return job.success ? { server: known.server, job: job.data } : null;
    } catch (error) {
      if (error instanceof RunnerError) return null;
      throw error;
    }
  }

  async function videos(
    ctx: RunContext,
    s: OpenAIServerSettings,
    slotServer: string,
    fileFields: readonly string[],
  ) {
    const earlier = ctx.fresh ? null : await videoOfEarlierAttempt(ctx, s);
    let server = slotServer;
    let job: OpenAIVideoJob;
    if (earlier) {
      ({ server, job } = earlier);
      log("info", "video job re-attached", { server, job_id: job.id, run_id: ctx.runId });
    } else {
      const created = openAIVideoJobSchema.safeParse(
        await (await first(ctx, s, server, fileFields)).body.json().catch(() => null),
      );
      if (!created.success)
        throw new RunnerError("MODEL_ERROR", "the model server's answer is not a video job");
      job = created.data;
      log("debug", "video job created", { server, job_id: job.id, run_id: ctx.runId });
      // Kept for a worker that takes the run over: it follows this job rather than making another.
      await deps.notes
        ?.set(ctx.runId, VIDEO_NOTE, JSON.stringify({ server, id: job.id }))
        .catch((error: unknown) =>
          log("info", "the video job's id could not be kept", { error: (error as Error).message }),
        );
    }
    const id = encodeURIComponent(job.id);
    try {
      while (job.status === "queued" || job.status === "in_progress") {
        await abortableDelay(s.poll_interval_ms, ctx.signal);
        const polled = openAIVideoJobSchema.safeParse(
          await (await call(s, server, `v1/videos/${id}`, {}, ctx.signal)).body.json().catch(() => null),
        );
        if (!polled.success)
          throw new RunnerError("MODEL_ERROR", "the model server's answer is not a video job");
        job = polled.data;
        if (job.progress !== null && job.progress !== undefined)
          ctx.progress({
            completed: Math.floor((Math.min(100, job.progress) / 100) * ctx.unitsRequested),
            total: ctx.unitsRequested,
          });
      }
      if (job.status === "failed")
        throw new RunnerError("MODEL_ERROR", job.error?.message || "The model server failed the video.");
      const content = await call(s, server, `v1/videos/${id}/content`, {}, ctx.signal);
      const url = await ctx.outputs.save(
        "video.mp4",
        Buffer.from(await content.body.arrayBuffer()),
        ctx.signal,
      );
      return { output: outputOfKind("video", [url]) };
    } catch (error) {
      // A canceled run's job is deleted on its server, which stops the GPU's work on it.
      if (ctx.signal.aborted)
        await request(new URL(`v1/videos/${id}`, `${server}/`), {
          dispatcher: modelServers,
          method: "DELETE",
          headers: authorization(s, deps.secretsKey),
          signal: AbortSignal.timeout(5_000),
        })
          .then((res) => res.body.dump())
          .catch(() => {});
      throw error;
    }
  }

  return {
    // The request leaves while the run's start is recorded; run() continues it in this process
    // (core's executesWhereLeased). Not for an input with files: those are read at the start.
    async begin({ runId, input, settings, slot }) {
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind !== "openai" || !server || namesFiles(input)) return false;
      const controller = new AbortController();
      const answer = call(settings, server, ...requestOf(settings, input, []), controller.signal);
      sent.set(runId, { answer, controller });
      answer
        .catch(() => {})
        .finally(() => {
          setTimeout(() => {
            if (sent.get(runId)?.answer !== answer) return;
            sent.delete(runId);
            void answer.then((a) => a.body.dump()).catch(() => {});
          }, UNCLAIMED_MS).unref();
        })
        .catch(() => {});
      return true;
    },

    async abandon({ runId }) {
      claim(runId)?.controller.abort(new Error("the run needs no execution"));
    },

    async run(ctx) {
      if (ctx.settings.kind !== "openai")
        throw new RunnerError("INTERNAL_ERROR", "not an OpenAI-style model");
      const s = ctx.settings;
      const server = ctx.slot ? serverOfSlot(ctx.slot) : null;
      if (!server) throw new Error("an OpenAI-style model's run has no server slot");
      const fileFields = ctx.fileFields ?? [];
      try {
        if (s.api === "images") return await images(ctx, s, server, fileFields);
        if (s.api === "speech") return await speech(ctx, s, server);
        return await videos(ctx, s, server, fileFields);
      } catch (error) {
        if (error instanceof ServerFailed)
          log("info", "model server failed", { server, error: error.message });
        throw error;
      }
    },
  };
}
