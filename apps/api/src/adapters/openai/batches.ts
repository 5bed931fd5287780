// OpenAI's Batch API over our batches (issue #61): `files.create({purpose: "batch"})` stores the
// JSON Lines, `batches.create` makes one of our batches of it (every line translated as the
// endpoint's own route translates a request: packages/core adapters/openaiBatch.ts), and the
// output and error files are our batch's results in OpenAI's line shapes, read when asked.
import type { Response } from "express";
import { z } from "zod";
import {
  ApiError,
  batchCountsOf,
  BATCH_JSONL_MAX_BYTES,
  batchOfOutputFileId,
  OPENAI_BATCH_ENDPOINTS,
  openAIBatchLine,
  openAIBatchLineModel,
  openAIBatchParam,
  openAIBatchResultLine,
  presentOpenAIBatch,
  presentVideo,
  type OpenAIBatchEndpoint,
} from "@svc/core";
import type { Batch, File } from "@svc/db";
import {
  batchFileChunks,
  batchResults,
  cancelBatch,
  deleteInputFile,
  fileRefusal,
  findRunForAccount,
  findBatch,
  findBatchFile,
  jsonlLines,
  jsonlTexts,
  listBatches,
} from "@svc/use-cases";
import { FileRefused } from "@svc/storage";
import { ownerOf } from "../../auth/authenticate.js";
import { rawRoute, route, type Route, type RouteContext } from "../../http/route.js";
import { batchFileIntake, readForm, uploader } from "../../http/upload.js";
import { makeBatch } from "../../runs/makeBatch.js";
import { runnableModel } from "../../runs/startRun.js";
import { OUTPUT_FLAG, paramError } from "./shared.js";

const tags = ["OpenAI"];
const unix = (d: Date) => Math.floor(d.getTime() / 1_000);

/** A batch file as OpenAI's File object. */
const presentFile = (file: File) => ({
  id: file.id,
  object: "file" as const,
  bytes: file.size,
  created_at: unix(file.createdAt),
  expires_at: unix(file.expiresAt),
  filename: `${file.id}.jsonl`,
  purpose: "batch",
  status: "processed",
});

const FileObject = z
  .object({
    id: z.string(),
    object: z.literal("file"),
    bytes: z.number(),
    created_at: z.number(),
    expires_at: z.number().nullable(),
    filename: z.string(),
    purpose: z.string(),
    status: z.string(),
  })
  .meta({ id: "OpenAIFile" });

export const createFile = route({
  method: "post",
  path: "/files",
  tags,
  summary: "Upload a batch's input file (OpenAI's files.create, purpose batch)",
  description: `A multipart form: file (JSON Lines, one request a line: {custom_id, method: "POST", url, body}) and purpose, which must be batch. At most ${BATCH_JSONL_MAX_BYTES} bytes; kept as the account's input files are (FILE_RETENTION_HOURS).`,
  form: {
    schema: z.object({ purpose: z.string().optional() }),
    example: { purpose: "batch" },
    files: ["file"],
  },
  errors: [413],
  reply: { status: 200, schema: FileObject, description: "The file" },
  async handler(_input, ctx) {
    const form = await readForm(ctx, ["file"], batchFileIntake(ctx)).catch((error: unknown) => {
      if (error instanceof FileRefused) throw fileRefusal(error);
      throw error;
    });
    const file = form.files.file;
    if (form.fields.purpose !== "batch") {
      if (file) await deleteInputFile(ctx.deps.files, uploader(ctx), file).catch(() => {});
      throw paramError("purpose", 'Files are taken here for batches: purpose must be "batch".');
    }
    if (!file) throw paramError("file", "The form has no file.");
    return presentFile(file);
  },
});

const byFile = z.object({ file_id: z.string().min(1).max(100) });

async function batchFileOr404(ctx: RouteContext, id: string) {
  const file = await findBatchFile(ctx.deps.files, uploader(ctx), id);
  if (!file) throw new ApiError("FILE_NOT_FOUND", `No file with id ${JSON.stringify(id)}.`);
  return file;
}

/** A batch's output or error file, as OpenAI's lines, written as they are read. */
async function sendBatchFile(ctx: RouteContext, batch: Batch, which: "output" | "errors") {
  const res: Response = ctx.res;
  const endpoint = batch.endpoint as OpenAIBatchEndpoint;
  res.status(200).type("application/jsonl");
  for await (const line of batchResults(ctx.deps.db, batch.id, which === "output" ? "results" : "errors")) {
    if (which === "output" && line.status !== "completed") continue;
    const run =
      OPENAI_BATCH_ENDPOINTS[endpoint] === "video" && line.run_id
        ? await findRunForAccount(ctx.deps.db, line.run_id, batch.accountId, batch.mode)
        : null;
    const out = openAIBatchResultLine(line, endpoint, unix(batch.createdAt), () => run && presentVideo(run));
    if (!res.write(`${JSON.stringify(out)}\n`)) await new Promise((r) => res.once("drain", r));
  }
  res.end();
}

export const retrieveFile = route({
  method: "get",
  path: "/files/{file_id}",
  tags,
  summary: "A file (OpenAI's files.retrieve): a batch's input, output or error file",
  params: byFile,
  errors: [404],
  reply: { status: 200, schema: FileObject, description: "The file" },
  async handler({ params }, ctx) {
    const output = batchOfOutputFileId(params.file_id);
    if (!output) return presentFile(await batchFileOr404(ctx, params.file_id));
    const batch = await batchOr404(ctx, output.batchId);
    return {
      id: params.file_id,
      object: "file" as const,
      bytes: 0,
      created_at: unix(batch.endedAt ?? batch.createdAt),
      expires_at: null,
      filename: `${params.file_id}.jsonl`,
      purpose: "batch_output",
      status: "processed",
    };
  },
});

export const fileContent = rawRoute({
  method: "get",
  path: "/files/{file_id}/content",
  tags,
  summary: "A file's content (OpenAI's files.content): JSON Lines",
  params: byFile,
  errors: [404],
  responses: {
    200: { description: "JSON Lines", content: { "application/jsonl": { schema: { type: "string" } } } },
  },
  async handler({ params }, ctx) {
    const output = batchOfOutputFileId(params.file_id);
    if (output) return sendBatchFile(ctx, await batchOr404(ctx, output.batchId), output.which);
    const file = await batchFileOr404(ctx, params.file_id);
    ctx.res.status(200).type("application/jsonl");
    for await (const chunk of await batchFileChunks(ctx.deps.files, file))
      if (!ctx.res.write(chunk)) await new Promise((r) => ctx.res.once("drain", r));
    ctx.res.end();
  },
});

async function batchOr404(ctx: RouteContext, id: string) {
  const batch = await findBatch(ctx.deps.db, ownerOf(ctx.res), id);
  if (!batch || batch.api !== "openai")
    throw new ApiError("BATCH_NOT_FOUND", `No batch with id ${JSON.stringify(id)}.`);
  return batch;
}

/** A batch as OpenAI's Batch object, its items counted by its row's tally. */
const asOpenAI = (batch: Batch) => presentOpenAIBatch(batch, batchCountsOf(batch));

const BatchObject = z
  .looseObject({ id: z.string(), object: z.literal("batch"), status: z.string() })
  .meta({ id: "OpenAIBatch" });
const byBatch = z.object({ batch_id: z.string().min(1).max(100) });

/** The model a batch file asks for: its first line's body.model that says one. */
async function fileModel(ctx: RouteContext, file: File): Promise<string> {
  for await (const text of jsonlTexts(await batchFileChunks(ctx.deps.files, file), BATCH_JSONL_MAX_BYTES)) {
    const model = typeof text === "string" ? openAIBatchLineModel(text) : null;
    if (model) return model;
  }
  throw paramError("input_file_id", "No line of the file names a model (body.model).");
}

export const createOpenAIBatch = route({
  method: "post",
  path: "/batches",
  tags,
  summary: "Create a batch of an uploaded file (OpenAI's batches.create)",
  description:
    "input_file_id (a file of purpose batch), endpoint (/v1/images/generations, /v1/images/edits or /v1/videos), completion_window 24h, metadata. Every line asks for one model (the first line's); each line is translated as the endpoint's route translates a request, a bad one becoming a line of the error file. Items are priced, admitted and run as our batches are.",
  body: {
    schema: z.object({
      input_file_id: z.string().min(1).max(100),
      endpoint: z.string().max(100),
      completion_window: z.string().max(10),
      metadata: z.record(z.string().max(64), z.string().max(512)).nullable().optional(),
    }),
    example: { input_file_id: "file_…", endpoint: "/v1/images/generations", completion_window: "24h" },
  },
  guards: ["runCreation"],
  errors: [403, 404, 413, 429],
  reply: { status: 200, schema: BatchObject, description: "The batch" },
  async handler({ body }, ctx) {
    if (!(body.endpoint in OPENAI_BATCH_ENDPOINTS))
      throw paramError(
        "endpoint",
        `endpoint must be one of ${Object.keys(OPENAI_BATCH_ENDPOINTS).join(", ")}.`,
      );
    if (body.completion_window !== "24h")
      throw paramError("completion_window", 'completion_window must be "24h".');
    const endpoint = body.endpoint as OpenAIBatchEndpoint;
    const file = await findBatchFile(ctx.deps.files, uploader(ctx), body.input_file_id);
    if (!file) throw paramError("input_file_id", `No file of purpose batch with id ${body.input_file_id}.`);
    const model = await runnableModel(ctx.deps, ctx.res, await fileModel(ctx, file));
    if (!model[OUTPUT_FLAG[OPENAI_BATCH_ENDPOINTS[endpoint]]])
      throw paramError("endpoint", `${model.id} does not make what ${endpoint} answers.`);
    const batch = await makeBatch(
      ctx,
      {
        model,
        api: "openai",
        endpoint,
        inputFileId: file.id,
        ...(body.metadata && { metadata: body.metadata }),
        paramOf: openAIBatchParam,
      },
      jsonlLines(await batchFileChunks(ctx.deps.files, file), BATCH_JSONL_MAX_BYTES, (text) =>
        openAIBatchLine(text, endpoint, model),
      ),
    );
    return asOpenAI(batch);
  },
});

export const retrieveOpenAIBatch = route({
  method: "get",
  path: "/batches/{batch_id}",
  tags,
  summary: "A batch (OpenAI's batches.retrieve)",
  params: byBatch,
  errors: [404],
  reply: { status: 200, schema: BatchObject, description: "The batch" },
  async handler({ params }, ctx) {
    return asOpenAI(await batchOr404(ctx, params.batch_id));
  },
});

export const cancelOpenAIBatch = route({
  method: "post",
  path: "/batches/{batch_id}/cancel",
  tags,
  summary: "Cancel a batch (OpenAI's batches.cancel): cancelling, then cancelled",
  params: byBatch,
  errors: [404],
  reply: { status: 200, schema: BatchObject, description: "The batch" },
  async handler({ params }, ctx) {
    await batchOr404(ctx, params.batch_id);
    const batch = await cancelBatch(ctx.deps, ownerOf(ctx.res), params.batch_id);
    return asOpenAI(batch!);
  },
});

export const listOpenAIBatches = route({
  method: "get",
  path: "/batches",
  tags,
  summary: "Batches, newest first (OpenAI's batches.list)",
  errors: [404],
  query: z.object({
    after: z.string().max(100).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  }),
  reply: {
    status: 200,
    schema: z.object({
      object: z.literal("list"),
      data: z.array(BatchObject),
      first_id: z.string().nullable(),
      last_id: z.string().nullable(),
      has_more: z.boolean(),
    }),
    description: "A page of batches",
  },
  async handler({ query }, ctx) {
    const after = query.after ? await batchOr404(ctx, query.after) : null;
    const found = await listBatches(
      ctx.deps.db,
      ownerOf(ctx.res),
      query.limit + 1,
      after ? { createdAt: after.createdAt, id: after.id } : undefined,
      "openai",
    );
    const page = found.slice(0, query.limit);
    return {
      object: "list" as const,
      data: page.map(asOpenAI),
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
      has_more: found.length > query.limit,
    };
  },
});

export const openAIBatchRoutes: Route[] = [
  createFile,
  retrieveFile,
  fileContent,
  createOpenAIBatch,
  listOpenAIBatches,
  retrieveOpenAIBatch,
  cancelOpenAIBatch,
];
