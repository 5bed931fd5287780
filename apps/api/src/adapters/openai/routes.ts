// OpenAI's media API over our runs, at /openai/v1: so that `new OpenAI({ apiKey: "svc_live_…",
// baseURL: "<service>/openai/v1" })` works for images, videos and speech. Each route translates
// the request into a model's input (packages/core adapters/openai.ts) and starts a run as our own
// API does (startRun); images and speech wait for it (runToEnd: canceled if the client leaves),
// videos are OpenAI's asynchronous jobs, which our runs already are.
import { z } from "zod";
import { ApiError, presentOpenAIModel, type OpenAIAsk } from "@svc/core";
import { findModel, listModels } from "@svc/use-cases";
import { rawRoute, route, type Route } from "../../http/route.js";
import { runToEnd } from "../../runs/startRun.js";
import * as S from "./schemas.js";

import {
  charged,
  failure,
  outputFiles,
  runCreationHeaders,
  sendOutput,
  syncOpenAIRun,
  tokensHeader,
} from "./shared.js";
import { editImages, generateImages } from "./images.js";
import { createVideo, deleteVideo, listVideos, retrieveVideo, videoContent } from "./videos.js";
import { openAIBatchRoutes } from "./batches.js";
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

export const createSpeech = rawRoute({
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
  ...openAIBatchRoutes,
];
