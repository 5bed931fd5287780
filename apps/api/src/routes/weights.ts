// Personal weights (issue #60): an account's LoRAs, uploaded (a multipart form's `file`) or fetched
// from an https URL, listed, read and deleted, in the key's mode. The rules are use-cases'
// (weights/weights.ts); the checks of the file itself are storage's (safetensors only).
import { z } from "zod";
import { ApiError } from "@svc/core";
import type { Weights } from "@svc/db";
import { FileRefused } from "@svc/storage";
import {
  fileRefusal,
  findWeights,
  ingestWeights,
  listWeights,
  presentWeights,
  removeWeights,
  renameWeights,
  Unavailable,
  weightsFromUrl,
  WeightsLimitReached,
} from "@svc/use-cases";
import { authOf, ownerOf } from "../auth/authenticate.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import { route, type Route, type RouteContext } from "../http/route.js";
import { readForm, type Intake } from "../http/upload.js";
import { pageLimit } from "../http/validate.js";
import * as R from "../openapi/responses.js";

const tags = ["Weights"];
const byId = z.object({ weightsId: z.string().meta({ example: "wts_2kdpCM5tfN6vjSuI1aG2v2" }) });

const weightsForm = z.strictObject({
  url: z
    .url({ protocol: /^https$/, error: "expected an https:// URL" })
    .max(2048)
    .optional()
    .meta({
      description: "Fetch the file from here instead of uploading it (the same address rules as file inputs)",
    }),
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Default: the uploaded file's name" }),
  file: z
    .string()
    .optional()
    .meta({ description: "The .safetensors file (a multipart form's file part)", format: "binary" }),
});

const notFound = (id: string) =>
  new ApiError("WEIGHTS_NOT_FOUND", `No weights with id ${JSON.stringify(id)} (they may have been deleted).`);

/** The caller, as its weights are owned: its account, its key's mode, its key. */
const owner = (ctx: RouteContext) => {
  const auth = authOf(ctx.res);
  return { accountId: auth.accountId, mode: auth.mode, apiKeyId: auth.keyId };
};

/** A form's file part taken in as the caller's weights (named after the file until the form says otherwise). */
const weightsIntake = (ctx: RouteContext): Intake<Weights> => ({
  maxBytes: ctx.deps.weights.maxBytes,
  take: (source, filename) =>
    ingestWeights(ctx.deps.weights, owner(ctx), source, {
      name: filename?.replace(/\.safetensors$/i, "").slice(0, 200) || "weights",
      origin: "upload",
    }),
  discard: (made) => removeWeights(ctx.deps.weights, owner(ctx), made.id),
});

/** The use-cases' refusals as the API's answers. */
const refusal = (error: unknown): never => {
  if (error instanceof FileRefused) throw fileRefusal(error);
  if (error instanceof WeightsLimitReached) throw new ApiError("WEIGHTS_LIMIT_REACHED", error.message);
  if (error instanceof Unavailable)
    throw new ApiError("VALIDATION_ERROR", `The weights could not be fetched: ${error.message}.`, [
      { path: "url", message: error.message },
    ]);
  throw error;
};

const createWeights = route({
  method: "post",
  path: "/weights",
  tags,
  summary: "Add weights (a LoRA's .safetensors): uploaded, or fetched from an https URL",
  description:
    "A multipart form whose `file` part is the file (and an optional `name`), or JSON `{ url, name }`. Only safetensors is taken: its header is read and checked (tensor names, dtypes, shapes, byte ranges inside the file) before anything is kept; a pickle (.ckpt, .pt, .bin), which runs code when loaded, or any other file is 415. Larger than WEIGHTS_MAX_BYTES: 413, before the body is read. An account holds at most WEIGHTS_PER_ACCOUNT weights per mode (409 WEIGHTS_LIMIT_REACHED). Weights are visible to their account in the key's mode, and kept until deleted.",
  form: {
    schema: weightsForm,
    example: { url: "https://example.com/loras/brand-style.safetensors", name: "brand-style" },
    files: ["file"],
  },
  errors: [409, 413, 415],
  reply: {
    status: 201,
    schema: R.WeightsResponse,
    description: "The weights, as their header describes them",
  },
  async handler(_input, ctx) {
    const form = await readForm(ctx, ["file"], weightsIntake(ctx)).catch(refusal);
    const parsed = weightsForm.safeParse(form.fields);
    const uploaded = form.files.file;
    const discard = () => uploaded && removeWeights(ctx.deps.weights, owner(ctx), uploaded.id);
    if (!parsed.success) {
      await discard();
      const issue = parsed.error.issues[0]!;
      throw new ApiError("VALIDATION_ERROR", issue.message, [
        { path: issue.path.join(".") || "body", message: issue.message },
      ]);
    }
    const { url, name } = parsed.data;
    if (uploaded && url) {
      await discard();
      throw new ApiError("VALIDATION_ERROR", "Give a file or a url, not both.", [
        { path: "url", message: "not with a file" },
      ]);
    }
    if (uploaded)
      return {
        data: presentWeights(
          name ? await renameWeights(ctx.deps.db, ownerOf(ctx.res), uploaded.id, name) : uploaded,
        ),
      };
    if (!url)
      throw new ApiError("VALIDATION_ERROR", "Give the weights as a form's file, or a url.", [
        { path: "file", message: "expected a file or a url" },
      ]);
    return {
      data: presentWeights(
        await weightsFromUrl(ctx.deps.weights, owner(ctx), url, name ?? "weights").catch(refusal),
      ),
    };
  },
});

const listWeightsRoute = route({
  method: "get",
  path: "/weights",
  tags,
  summary: "List weights (yours and the published ones), newest first",
  query: z.object({ limit: pageLimit, cursor: cursorSchema }),
  reply: {
    status: 200,
    schema: R.WeightsList,
    description: "A page of the caller's weights (of the key's mode) and the operator's published ones",
  },
  async handler({ query }, ctx) {
    const found = await listWeights(ctx.deps.db, ownerOf(ctx.res), query.limit + 1, query.cursor);
    const { page, nextCursor } = paginate(found, query.limit);
    return { data: { weights: page.map(presentWeights), next_cursor: nextCursor } };
  },
});

const getWeights = route({
  method: "get",
  path: "/weights/{weightsId}",
  tags,
  summary: "Weights, as their header describes them",
  params: byId,
  errors: [404],
  reply: { status: 200, schema: R.WeightsResponse, description: "The weights" },
  async handler({ params }, ctx) {
    const found = await findWeights(ctx.deps.db, ownerOf(ctx.res), params.weightsId);
    if (!found) throw notFound(params.weightsId);
    return { data: presentWeights(found) };
  },
});

const deleteWeightsRoute = route({
  method: "delete",
  path: "/weights/{weightsId}",
  tags,
  summary: "Delete weights (their stored bytes go with them)",
  params: byId,
  errors: [403, 404],
  reply: { status: 200, schema: R.WeightsDeleted, description: "Deleted" },
  async handler({ params }, ctx) {
    if (!(await removeWeights(ctx.deps.weights, owner(ctx), params.weightsId))) {
      if (await findWeights(ctx.deps.db, ownerOf(ctx.res), params.weightsId))
        throw new ApiError(
          "FORBIDDEN",
          "These weights are published by the operator; only their owner can delete them.",
        );
      throw notFound(params.weightsId);
    }
    return { data: { id: params.weightsId, deleted: true as const } };
  },
});

export const weightsRoutes: Route[] = [createWeights, listWeightsRoute, getWeights, deleteWeightsRoute];
