// OpenAI's media API over our runs, at /openai/v1: so that `new OpenAI({ apiKey: "svc_live_…",
// baseURL: "<service>/openai/v1" })` works for images, videos and speech. Each route translates
// the request into a model's input (packages/core adapters/openai.ts) and starts a run as our own
// API does (startRun); images and speech wait for it (runToEnd: canceled if the client leaves),
// videos are OpenAI's asynchronous jobs, which our runs already are.
import type { Response } from "express";
import { z } from "zod";
import {
  ApiError,
  OpenAIParamError,
  inputFromOpenAI,
  isTerminal,
  openAIParam,
  openAIUsage,
  runFilesIn,
  presentOpenAIModel,
  presentVideo,
  servedMediaType,
  type OpenAIAsk,
  type RunRecord,
  type VideoRun,
} from "@svc/core";
import type { Run } from "@svc/db";
import {
  deleteRunFiles,
  findModel,
  findRunForAccount,
  listModels,
  listRuns,
  videoModelIds,
} from "@svc/use-cases";
import { authOf } from "../../auth/authenticate.js";
import { clientGone } from "../../http/clientGone.js";
import { readForm } from "../../http/upload.js";
import { rawRoute, route, type Route, type RouteContext } from "../../http/route.js";
import { secretsKey } from "../../secrets.js";
import { header } from "../../openapi/register.js";
import { waitForEnd } from "../../runs/realtime.js";
import {
  abandonRun,
  idempotencyKeyHeader,
  startSyncRun,
  queuedRecord,
  readRun,
  runnableModel,
  runToEnd,
  startRun,
} from "../../runs/startRun.js";
import type { HeldPlace } from "../../runs/heldConnections.js";
import type { AppDeps } from "../../deps.js";
import * as S from "./schemas.js";

/** The headers a creating route reads (Idempotency-Key, as long as our API takes it). */
const runCreationHeaders = z.object({ "idempotency-key": idempotencyKeyHeader });

const TOKENS_HEADER = "X-Tokens-Charged";
const tokensHeader = {
  [TOKENS_HEADER]: header("Tokens the run was charged (0 for test keys)", "5"),
};
const charged = (res: Response, run: { tokensCharged: number | null }) =>
  res.set(TOKENS_HEADER, String(run.tokensCharged ?? 0));

type Output = "image" | "video" | "audio";
const OUTPUT_FLAG = { image: "outputsImage", video: "outputsVideo", audio: "outputsAudio" } as const;

/** A refusal naming OpenAI's parameter, as its clients show it (error.param). */
const paramError = (param: string, message: string) =>
  new ApiError("VALIDATION_ERROR", message, [{ path: param, message }]);

/**
 * Starts a run of `modelId` for an OpenAI-style request: the model must make `output`; the
 * request's parameters become the model's input, and a field that does not validate is reported
 * under the parameter it came from.
 */
async function startOpenAIRun(
  ctx: RouteContext,
  modelId: string,
  output: Output,
  ask: OpenAIAsk,
  body: unknown,
) {
  const { deps, res, req } = ctx;
  const model = await runnableModel(deps, res, modelId);
  if (!model[OUTPUT_FLAG[output]])
    throw paramError("model", `${model.id} does not make ${output === "audio" ? "audio" : `${output}s`}.`);
  let translated;
  try {
    translated = inputFromOpenAI(model.inputSchema, ask);
  } catch (error) {
    if (error instanceof OpenAIParamError) throw paramError(error.param, error.message);
    throw error;
  }
  try {
    return await startRun(deps, res, {
      api: "openai",
      modelId: model.id,
      input: translated.input,
      body,
      idempotencyKey: req.get("idempotency-key") ?? null,
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === "VALIDATION_ERROR" && error.details?.length) {
      const details = error.details.map((d) => ({ ...d, path: openAIParam(translated.paramOf, d.path) }));
      throw new ApiError("VALIDATION_ERROR", `${details[0]!.path}: ${details[0]!.message}`, details);
    }
    throw error;
  }
}

/** A synchronous call's run (images, speech): its waiting place taken before it is made. */
async function syncOpenAIRun(...args: Parameters<typeof startOpenAIRun>) {
  const { started, place } = await startSyncRun(args[0].deps, args[0].res, () => startOpenAIRun(...args));
  return { run: started.run, place };
}

/** A run that failed, as the synchronous call's error: the client's fault (400) or the run's (502). */
function failure(run: RunRecord): ApiError {
  const message = run.errorMessage || "The run failed.";
  if (run.status === "CANCELED") return new ApiError("RUN_FAILED", "The run was canceled.");
  return run.errorCode === "CONTENT_POLICY" || run.errorCode === "INVALID_INPUT"
    ? new ApiError("VALIDATION_ERROR", message)
    : new ApiError("RUN_FAILED", message);
}

/**
 * The files the run made, in its output's order (their stable URLs and store keys): never merely
 * any URL of ours its output names (a model that echoes its input may name another run's).
 */
const outputFiles = (deps: AppDeps, run: { id: string; output: unknown }) =>
  runFilesIn(run.output, deps.settings.PUBLIC_BASE_URL, secretsKey(deps), run.id);

async function readOutput(deps: AppDeps, key: string): Promise<Buffer> {
  const object = await deps.outputs.store.read(key, {});
  if (!object?.body) throw new ApiError("OUTPUT_EXPIRED", "The output file is no longer stored.");
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Streams one output file, with its media type. */
async function sendOutput(deps: AppDeps, res: Response, key: string) {
  const object = await deps.outputs.store.read(key, {}, clientGone(res));
  if (!object?.body) throw new ApiError("OUTPUT_EXPIRED", "The output file is no longer stored.");
  res.status(200).set({
    "Content-Type": servedMediaType(key) ?? "application/octet-stream",
    ...(object.headers["Content-Length"] && { "Content-Length": object.headers["Content-Length"] }),
  });
  for await (const chunk of object.body)
    if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
  res.end();
}

// ---------------------------------------------------------------- models

const listModelsRoute = route({
  method: "get",
  path: "/models",
  tags: ["OpenAI"],
  summary: "The models (OpenAI's models.list): the catalogue's listed, active models",
  reply: { status: 200, schema: S.OpenAIModelList, description: "The models" },
  async handler(_input, { deps }) {
    const { models } = await listModels(deps.db, { limit: 200, offset: 0 });
    return { object: "list" as const, data: models.map(presentOpenAIModel) };
  },
});

const getModel = route({
  method: "get",
  path: "/models/{model+}",
  tags: ["OpenAI"],
  summary: "A model (OpenAI's models.retrieve)",
  params: z.object({ model: z.string() }),
  errors: [404],
  reply: { status: 200, schema: S.OpenAIModel, description: "The model" },
  async handler({ params }, { deps }) {
    const model = await findModel(deps.db, params.model);
    if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(params.model)}.`);
    return presentOpenAIModel(model);
  },
});

// ---------------------------------------------------------------- images

const imageFields = {
  model: z.string().min(1).max(200).meta({ description: "A model id of ours that makes images" }),
  n: z.coerce.number().int().min(1).max(10).optional(),
  size: z
    .string()
    .max(20)
    .optional()
    .meta({ description: "WxH matching one of the model's image_size presets, or auto" }),
  response_format: z.enum(["url", "b64_json"]).optional(),
  output_format: z
    .string()
    .max(10)
    .optional()
    .meta({ description: "png (the images the built-in models make)" }),
  user: z.string().optional(),
  quality: z.string().optional().meta({ description: "Taken and not used" }),
  background: z.string().optional().meta({ description: "Taken and not used" }),
};
const generateBody = z.object({
  ...imageFields,
  prompt: z.string().min(1),
  stream: z.boolean().optional(),
  partial_images: z.number().int().min(0).max(3).optional(),
  moderation: z.string().optional(),
  style: z.string().optional(),
});
const editFields = z.object({
  ...imageFields,
  prompt: z.string().min(1).optional(),
  image: z.string().optional(),
  mask: z.string().optional(),
});

function checkOutputFormat(format: string | undefined) {
  if (format !== undefined && format !== "png")
    throw paramError("output_format", "The images are PNG: output_format may only be png.");
}

/** The images of an ended run, as OpenAI's ImagesResponse. */
async function imagesResponse(deps: AppDeps, res: Response, run: Run, format: "url" | "b64_json") {
  if (run.status !== "COMPLETED") throw failure(run);
  const files = outputFiles(deps, run);
  const data = await Promise.all(
    files.map(async ([url, key]) =>
      format === "url"
        ? { url: await deps.realtime.urls.resolve(url) }
        : { b64_json: (await readOutput(deps, key)).toString("base64") },
    ),
  );
  charged(res, run);
  return {
    created: Math.floor(run.createdAt.getTime() / 1000),
    data,
    output_format: "png",
    usage: openAIUsage(run.tokensCharged),
  };
}

/**
 * stream: each image as an image_generation.partial_image event once the run has made it (from
 * its progress events), then image_generation.completed with the last image and usage. No model
 * server streams partial images; ours are the run's images, one by one.
 */
async function streamImages(ctx: RouteContext, runId: string, partials: number, place: HeldPlace) {
  const { deps, res } = ctx;
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform" });
  const event = (type: string, data: object) =>
    res.writableEnded
      ? undefined
      : res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const created_at = Math.floor(Date.now() / 1000);
  const common = { created_at, size: "auto", quality: "auto", background: "auto", output_format: "png" };
  let sent = 0;
  let chain = Promise.resolve();
  const sendUpTo = (output: unknown) => {
    chain = chain.then(async () => {
      const files = outputFiles(deps, { id: runId, output });
      for (; sent < files.length && sent < partials; sent++) {
        const b64_json = (await readOutput(deps, files[sent]![1])).toString("base64");
        event("image_generation.partial_image", { ...common, b64_json, partial_image_index: sent });
      }
    });
    return chain;
  };
  const stop = deps.realtime.hub.listen(runId, (m) => {
    if (m !== "resync" && m.event.type === "progress" && m.event.data.output)
      void sendUpTo(m.event.data.output);
  });
  const gone = AbortSignal.any([clientGone(res), place.signal]);
  try {
    const run = await waitForEnd(
      deps.realtime,
      runId,
      () => readRun(deps, res, runId),
      deps.settings.SYNC_WAIT_MAX_SECONDS,
      gone,
    );
    stop();
    if (!run || !isTerminal(run.status)) {
      await abandonRun(deps, res, runId);
      event("error", {
        error: {
          message: "The run did not end in time and was canceled.",
          type: "server_error",
          code: "wait_timeout",
          param: null,
        },
      });
      return;
    }
    if (run.status !== "COMPLETED") {
      const e = failure(run);
      event("error", {
        error: { message: e.message, type: "server_error", code: e.code.toLowerCase(), param: null },
      });
      return;
    }
    await sendUpTo(run.output);
    const files = outputFiles(deps, run);
    const last = files.at(-1);
    const b64_json = last ? (await readOutput(deps, last[1])).toString("base64") : "";
    event("image_generation.completed", { ...common, b64_json, usage: openAIUsage(run.tokensCharged) });
  } catch (error) {
    deps.logger.warn("image stream failed", { run_id: runId, error: (error as Error).message });
    event("error", {
      error: { message: "The stream failed.", type: "server_error", code: "internal_error", param: null },
    });
  } finally {
    stop();
    res.end();
  }
}

const generateImages = rawRoute({
  method: "post",
  path: "/images/generations",
  tags: ["OpenAI"],
  summary: "Create images (OpenAI's images.generate)",
  description:
    "A run of `model` (an image model of ours), waited for: prompt, n (num_images), size (WxH of one of the model's image_size presets; 400 naming them otherwise), response_format url (our output URLs) or b64_json. usage.output_tokens is what the run was charged, also in X-Tokens-Charged. stream: true answers Server-Sent Events: image_generation.partial_image as each image is made (partial_images: 0 for none), then image_generation.completed. The run is canceled if the client leaves, or after SYNC_WAIT_MAX_SECONDS (504).",
  body: {
    schema: generateBody,
    example: { model: "acme/pixel/fast", prompt: "a lighthouse at dawn", size: "1024x576" },
  },
  headers: runCreationHeaders,
  guards: ["runCreation"],
  errors: [403, 404, 409, 502, 504],
  responses: {
    200: {
      description: "The images (or, with stream, their events)",
      headers: tokensHeader,
      content: {
        "application/json": { schema: S.ImagesResponse },
        "text/event-stream": { schema: { type: "string" } },
      },
    },
  },
  async handler({ body }, ctx) {
    checkOutputFormat(body.output_format);
    const ask = { prompt: body.prompt, n: body.n, size: body.size };
    const { run, place } = await syncOpenAIRun(ctx, body.model, "image", ask, ctx.req.body);
    if (body.stream) return streamImages(ctx, run.id, body.partial_images ?? 3, place);
    const ended = await runToEnd(ctx.deps, ctx.res, run.id, place);
    ctx.res.json(await imagesResponse(ctx.deps, ctx.res, ended, body.response_format ?? "url"));
  },
});

const editImages = route({
  method: "post",
  path: "/images/edits",
  tags: ["OpenAI"],
  summary: "Edit an image (OpenAI's images.edit): a model with an image input",
  description:
    "A multipart form (as OpenAI's clients send it): image (or image[]; the first), mask (for models with a mask field), prompt (for models with a prompt), model, n, size, response_format. The image goes to the model's image file field; or give it as `image`, a file id or URL, in JSON. Waited for as images.generate is.",
  form: {
    schema: editFields,
    example: { model: "acme/upscale", image: "file_5bS2vVd1LnZRvYqNZ3H9aA" },
    files: ["image", "mask"],
  },
  headers: runCreationHeaders,
  guards: ["runCreation"],
  errors: [403, 404, 409, 413, 502, 504],
  reply: { status: 200, schema: S.ImagesResponse, description: "The images", headers: tokensHeader },
  async handler(_input, ctx) {
    const form = await readForm(ctx, ["image", "mask"]);
    const parsed = editFields.safeParse(form.fields);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw paramError(issue.path.join(".") || "body", issue.message);
    }
    const body = parsed.data;
    checkOutputFormat(body.output_format);
    const image = form.files.image?.id ?? body.image;
    if (!image) throw paramError("image", "An image is required.");
    const mask = form.files.mask?.id ?? body.mask;
    const ask: OpenAIAsk = { prompt: body.prompt, n: body.n, size: body.size, image, ...(mask && { mask }) };
    const { run, place } = await syncOpenAIRun(ctx, body.model, "image", ask, { ...body, image, mask });
    const ended = await runToEnd(ctx.deps, ctx.res, run.id, place);
    return imagesResponse(ctx.deps, ctx.res, ended, body.response_format ?? "url");
  },
});

// ---------------------------------------------------------------- videos

const videoFields = z.object({
  model: z.string().min(1).max(200).meta({ description: "A model id of ours that makes videos" }),
  prompt: z.string().min(1),
  seconds: z
    .union([z.string(), z.number()])
    .optional()
    .transform((v) => (v === undefined ? undefined : String(v))),
  size: z
    .string()
    .max(20)
    .optional()
    .meta({ description: "WxH matching one of the model's video_size presets" }),
  "input_reference[image_url]": z.string().optional(),
  "input_reference[file_id]": z.string().optional(),
  input_reference: z
    .union([z.string(), z.object({ image_url: z.string().optional(), file_id: z.string().optional() })])
    .optional(),
});

const asVideo = (run: Run | (VideoRun & Record<string, unknown>)) => presentVideo(run as VideoRun);
const videoNotFound = (id: string) =>
  new ApiError("RUN_NOT_FOUND", `No video with id ${JSON.stringify(id)}.`);

const createVideo = route({
  method: "post",
  path: "/videos",
  tags: ["OpenAI"],
  summary: "Start a video (OpenAI's videos.create): a run, polled with retrieve",
  description:
    "JSON or a multipart form (OpenAI's clients send a form): prompt, model (a video model of ours), seconds (duration_seconds), size (WxH of one of its video_size presets), input_reference (an image file, or { image_url | file_id }) for the model's image field. The answer is the queued video; retrieve it for status and progress, then download its content.",
  form: {
    schema: videoFields,
    example: { model: "acme/motion/clip", prompt: "waves", seconds: "4", size: "320x180" },
    files: ["input_reference"],
  },
  headers: runCreationHeaders,
  guards: ["runCreation"],
  errors: [403, 404, 409, 413],
  reply: { status: 200, schema: S.Video, description: "The video, queued" },
  async handler(_input, ctx) {
    const form = await readForm(ctx, ["input_reference"]);
    const parsed = videoFields.safeParse(form.fields);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw paramError(issue.path.join(".") || "body", issue.message);
    }
    const body = parsed.data;
    const reference = typeof body.input_reference === "object" ? body.input_reference : undefined;
    const image =
      form.files.input_reference?.id ??
      (typeof body.input_reference === "string" ? body.input_reference : undefined) ??
      reference?.file_id ??
      reference?.image_url ??
      body["input_reference[file_id]"] ??
      body["input_reference[image_url]"];
    const ask: OpenAIAsk = {
      prompt: body.prompt,
      seconds: body.seconds,
      size: body.size,
      ...(image && { image, imageParam: "input_reference" as const }),
    };
    const started = await startOpenAIRun(ctx, body.model, "video", ask, { ...body, input_reference: image });
    return asVideo(queuedRecord(started));
  },
});

const byVideo = z.object({ id: z.string().meta({ example: "run_4ReEbWIXuDXbjwlguHgMmo" }) });

/** The caller's run by id, if it is a video: the video routes answer for no other run. */
async function videoRun(ctx: RouteContext, id: string): Promise<Run> {
  const auth = authOf(ctx.res);
  const run = await findRunForAccount(ctx.deps.db, id, auth.accountId, auth.mode);
  if (!run || !(await ctx.deps.models(run.modelId))?.outputsVideo) throw videoNotFound(id);
  return run;
}

const retrieveVideo = route({
  method: "get",
  path: "/videos/{id}",
  tags: ["OpenAI"],
  summary: "A video's status and progress (OpenAI's videos.retrieve)",
  params: byVideo,
  errors: [404],
  reply: { status: 200, schema: S.Video, description: "The video", headers: tokensHeader },
  async handler({ params }, ctx) {
    const run = await videoRun(ctx, params.id);
    if (run.tokensCharged !== null) charged(ctx.res, run);
    return asVideo(run);
  },
});

const listVideos = route({
  method: "get",
  path: "/videos",
  tags: ["OpenAI"],
  summary: "Videos, newest first (OpenAI's videos.list): runs of the models that make videos",
  query: z.object({
    after: z.string().max(64).optional().meta({ description: "The last id of the previous page" }),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    order: z.literal("desc").optional().meta({ description: "desc (newest first) only" }),
  }),
  errors: [404],
  reply: { status: 200, schema: S.VideoList, description: "A page of videos" },
  async handler({ query }, ctx) {
    const auth = authOf(ctx.res);
    const after = query.after ? await videoRun(ctx, query.after) : null;
    const found = await listRuns(ctx.deps.db, {
      accountId: auth.accountId,
      mode: auth.mode,
      modelIds: await videoModelIds(ctx.deps.db),
      ...(after && { after: { createdAt: after.createdAt, id: after.id } }),
      limit: query.limit + 1,
    });
    const page = found.slice(0, query.limit);
    return {
      object: "list" as const,
      data: page.map(asVideo),
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
      has_more: found.length > query.limit,
    };
  },
});

const deleteVideo = route({
  method: "delete",
  path: "/videos/{id}",
  tags: ["OpenAI"],
  summary: "Delete a video (OpenAI's videos.delete)",
  description:
    "A video still queued or in progress is canceled (charged what it delivered); an ended one has its files deleted. Its run stays in the account's history and ledger.",
  params: byVideo,
  errors: [404],
  reply: { status: 200, schema: S.VideoDeleted, description: "Deleted" },
  async handler({ params }, ctx) {
    const run = await videoRun(ctx, params.id);
    const { deps } = ctx;
    await deleteRunFiles(
      {
        db: deps.db,
        runs: deps.runs,
        store: deps.outputs.store,
        publicBaseUrl: deps.settings.PUBLIC_BASE_URL,
        secretsKey: secretsKey(deps),
      },
      authOf(ctx.res),
      run.id,
    );
    return { id: run.id, object: "video.deleted" as const, deleted: true as const };
  },
});

const videoContent = rawRoute({
  method: "get",
  path: "/videos/{id}/content",
  tags: ["OpenAI"],
  summary: "A completed video's file (OpenAI's videos.downloadContent)",
  params: byVideo,
  query: z.object({ variant: z.literal("video", "only the video variant is made").optional() }),
  errors: [404, 410],
  responses: {
    200: {
      description: "The MP4",
      content: { "video/mp4": { schema: { type: "string", format: "binary" } } },
    },
  },
  async handler({ params }, ctx) {
    const run = await videoRun(ctx, params.id);
    const file = run.status === "COMPLETED" ? outputFiles(ctx.deps, run)[0] : undefined;
    if (!file)
      throw new ApiError("NOT_FOUND", `Video ${run.id} is ${run.status.toLowerCase()}: it has no content.`);
    charged(ctx.res, run);
    await sendOutput(ctx.deps, ctx.res, file[1]);
  },
});

// ---------------------------------------------------------------- speech

const speechBody = z.object({
  model: z.string().min(1).max(200).meta({ description: "A model id of ours that makes audio" }),
  input: z.string().min(1).max(4096),
  voice: z.union([z.string(), z.object({ id: z.string() })]).optional(),
  response_format: z
    .string()
    .max(10)
    .optional()
    .meta({ description: "One of the model's format values (wav, mp3)" }),
  instructions: z.string().optional().meta({ description: "Taken and not used" }),
  speed: z.number().optional().meta({ description: "Taken and not used" }),
  stream_format: z.literal("audio", "stream_format sse is not supported").optional(),
});

const createSpeech = rawRoute({
  method: "post",
  path: "/audio/speech",
  tags: ["OpenAI"],
  summary: "Make audio from text (OpenAI's audio.speech.create): the audio model's file",
  description:
    "A run of `model` with input as its prompt, voice for models with a voice field, response_format as its format; waited for, then its file is streamed back. The run is canceled if the client leaves, or after SYNC_WAIT_MAX_SECONDS (504).",
  body: {
    schema: speechBody,
    example: { model: "acme/voice/tone", input: "a calm sea", response_format: "mp3" },
  },
  headers: runCreationHeaders,
  guards: ["runCreation"],
  errors: [403, 404, 409, 502, 504],
  responses: {
    200: {
      description: "The audio",
      headers: tokensHeader,
      content: { "audio/*": { schema: { type: "string", format: "binary" } } },
    },
  },
  async handler({ body }, ctx) {
    const voice = typeof body.voice === "object" ? body.voice.id : body.voice;
    const ask: OpenAIAsk = {
      prompt: body.input,
      ...(voice && { voice }),
      ...(body.response_format && { responseFormat: body.response_format }),
    };
    const { run, place } = await syncOpenAIRun(ctx, body.model, "audio", ask, ctx.req.body);
    const ended = await runToEnd(ctx.deps, ctx.res, run.id, place);
    if (ended.status !== "COMPLETED") throw failure(ended);
    const file = outputFiles(ctx.deps, ended)[0];
    if (!file) throw new ApiError("RUN_FAILED", "The run made no audio file.");
    charged(ctx.res, ended);
    await sendOutput(ctx.deps, ctx.res, file[1]);
  },
});

export const openAIRoutes: Route[] = [
  listModelsRoute,
  getModel,
  generateImages,
  editImages,
  createVideo,
  listVideos,
  retrieveVideo,
  deleteVideo,
  videoContent,
  createSpeech,
];
