// OpenAI's images API: generations (JSON, or streamed partial images) and edits (a multipart form).
import type { Response } from "express";
import { z } from "zod";
import { isTerminal, openAIUsage, type OpenAIAsk } from "@svc/core";
import type { Run } from "@svc/db";
import { clientGone } from "../../http/clientGone.js";
import { readForm } from "../../http/upload.js";
import { rawRoute, route, type RouteContext } from "../../http/route.js";
import { waitForEnd } from "../../runs/realtime.js";
import { abandonRun, readRun, runToEnd } from "../../runs/startRun.js";
import type { HeldPlace } from "../../runs/heldConnections.js";
import type { AppDeps } from "../../deps.js";
import * as S from "./schemas.js";

import {
  charged,
  failure,
  outputFiles,
  paramError,
  readOutput,
  runCreationHeaders,
  syncOpenAIRun,
  tokensHeader,
} from "./shared.js";

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
  loras: z.array(z.unknown()).max(20).optional().meta({
    description:
      "Ours (OpenAI's API has no such field; send it as an extra body field): the run's LoRAs, [{weights, scale}], for a model that takes them",
  }),
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

export const generateImages = rawRoute({
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
    const ask = { prompt: body.prompt, n: body.n, size: body.size, loras: body.loras };
    const { run, place } = await syncOpenAIRun(ctx, body.model, "image", ask, ctx.req.body);
    if (body.stream) return streamImages(ctx, run.id, body.partial_images ?? 3, place);
    const ended = await runToEnd(ctx.deps, ctx.res, run.id, place);
    ctx.res.json(await imagesResponse(ctx.deps, ctx.res, ended, body.response_format ?? "url"));
  },
});

export const editImages = route({
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
