// OpenAI's videos API: asynchronous jobs, which our runs already are; content, list, delete.
import { z } from "zod";
import { ApiError, presentVideo, type OpenAIAsk, type VideoRun } from "@svc/core";
import type { Run } from "@svc/db";
import { deleteRunFiles, findRunForAccount, listRuns, videoModelIds } from "@svc/use-cases";
import { authOf } from "../../auth/authenticate.js";
import { readForm } from "../../http/upload.js";
import { rawRoute, route, type RouteContext } from "../../http/route.js";
import { secretsKey } from "../../secrets.js";
import { queuedRecord } from "../../runs/startRun.js";
import * as S from "./schemas.js";

import {
  charged,
  outputFiles,
  paramError,
  runCreationHeaders,
  sendOutput,
  startOpenAIRun,
  tokensHeader,
} from "./shared.js";

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

export const createVideo = route({
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

export const retrieveVideo = route({
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

export const listVideos = route({
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

export const deleteVideo = route({
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

export const videoContent = rawRoute({
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
