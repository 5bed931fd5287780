// Batches (issue #61): many runs of one model in one call. POST /batches takes the items in JSON
// (`items`) or as a JSON Lines body streamed line by line; each line is checked as a run's input
// is, a bad one becoming an error line. The workers admit items a few at a time into the batch lane
// (use-cases batches/feeding.ts); results are read as JSONL, one line per ended item.
import { z } from "zod";
import { ApiError, BATCH_JSONL_MAX_BYTES, BATCH_MAX_ITEMS } from "@svc/core";
import {
  batchFileChunks,
  batchResults,
  cancelBatch,
  findBatch,
  findBatchFile,
  itemLines,
  jsonlLines,
  listBatches,
  presentBatch,
} from "@svc/use-cases";
import { ownerOf } from "../auth/authenticate.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import { rawRoute, route, type Route, type RouteContext } from "../http/route.js";
import { uploader } from "../http/upload.js";
import { pageLimit } from "../http/validate.js";
import { makeBatch } from "../runs/makeBatch.js";
import { runnableModel } from "../runs/startRun.js";
import * as R from "../openapi/responses.js";

const tags = ["Batches"];
const byId = z.object({ batchId: z.string().meta({ example: "batch_2kdpCM5tfN6vjSuI1aG2v2" }) });

const createBody = z.object({
  model: z.string().min(1).max(200).meta({ description: "The model every item runs" }),
  items: z
    .array(z.unknown())
    .min(1)
    .max(BATCH_MAX_ITEMS)
    .optional()
    .meta({ description: "The items: {custom_id, input} each (custom_id optional, at most 200 characters)" }),
  input_file_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "Or a JSON Lines file of the items (POST /files?purpose=batch)" }),
  webhook_url: z.string().max(2_048).optional().meta({ description: "Receives batch.completed and friends" }),
  metadata: z.record(z.string().max(64), z.string().max(512)).optional(),
});
const linesQuery = z.object({
  model: z.string().min(1).max(200).optional().meta({ description: "With a JSON Lines body: the model" }),
  webhook_url: z.string().max(2_048).optional(),
});

const createBatchRoute = route({
  method: "post",
  path: "/batches",
  tags,
  summary: "Create a batch: many runs of one model, results as JSONL",
  description: `The items in JSON (\`items\`), or a JSON Lines body (Content-Type application/jsonl, one item a line, the model and webhook_url in the query), read as a stream. Each line is checked as a run's input is; a bad line is an error line of the batch's results (naming the line and the field), never a refused batch. At most ${BATCH_MAX_ITEMS} lines. Items run in the batch lane (a place goes to one only while no interactive run waits for it, and at most BATCH_MAX_SHARE_PERCENT of a model's places hold them), at the model's price less the batch discount (BATCH_DISCOUNT_PERCENT, or the model's pricing.batch_discount_percent), reserved item by item; the batch's window is 24 hours.`,
  query: linesQuery,
  body: {
    schema: createBody,
    example: { model: "acme/pixel/fast", items: [{ custom_id: "sku-1", input: { prompt: "a red chair" } }] },
  },
  lines: true,
  guards: ["runCreation"],
  errors: [403, 404, 413, 429],
  reply: { status: 201, schema: R.BatchResponse, description: "The batch, in progress" },
  async handler({ body, query }, ctx) {
    const modelId = body?.model ?? query.model;
    if (!modelId)
      throw new ApiError("VALIDATION_ERROR", "With a JSON Lines body, the model is in the query.", [
        { path: "model", message: "required" },
      ]);
    const model = await runnableModel(ctx.deps, ctx.res, modelId);
    const batch = await makeBatch(
      ctx,
      {
        model,
        api: "native",
        webhookUrl: body?.webhook_url ?? query.webhook_url,
        metadata: body?.metadata,
        ...(body?.input_file_id && { inputFileId: body.input_file_id }),
      },
      await linesOf(ctx, body),
    );
    return { data: presentBatch(batch) };
  },
});

/** Where a batch's lines are: the body's items, a batch file of the caller's, or a JSON Lines body. */
async function linesOf(ctx: RouteContext, body: z.output<typeof createBody> | undefined) {
  if (!body) return jsonlLines(ctx.req, BATCH_JSONL_MAX_BYTES);
  if (!body.items === !body.input_file_id)
    throw new ApiError(
      "VALIDATION_ERROR",
      "Give the items, or the id of a batch file of them: one of the two.",
      [{ path: "items", message: "items or input_file_id" }],
    );
  if (body.items) return itemLines(body.items);
  const file = await findBatchFile(ctx.deps.files, uploader(ctx), body.input_file_id!);
  if (!file)
    throw new ApiError(
      "FILE_NOT_FOUND",
      `No batch file with id ${JSON.stringify(body.input_file_id)} (POST /files?purpose=batch).`,
    );
  return jsonlLines(await batchFileChunks(ctx.deps.files, file), BATCH_JSONL_MAX_BYTES);
}

async function batchOr404(ctx: RouteContext, id: string) {
  const batch = await findBatch(ctx.deps.db, ownerOf(ctx.res), id);
  if (!batch) throw new ApiError("BATCH_NOT_FOUND", `No batch with id ${JSON.stringify(id)}.`);
  return batch;
}

const getBatch = route({
  method: "get",
  path: "/batches/{batchId}",
  tags,
  summary: "A batch: status, counts, tokens charged",
  params: byId,
  errors: [404],
  reply: { status: 200, schema: R.BatchResponse, description: "The batch" },
  async handler({ params }, ctx) {
    return { data: presentBatch(await batchOr404(ctx, params.batchId)) };
  },
});

const listBatchesRoute = route({
  method: "get",
  path: "/batches",
  tags,
  summary: "List batches, newest first",
  query: z.object({ limit: pageLimit, cursor: cursorSchema }),
  reply: {
    status: 200,
    schema: R.BatchList,
    description: "A page of the caller's batches (of the key's mode)",
  },
  async handler({ query }, ctx) {
    const found = await listBatches(ctx.deps.db, ownerOf(ctx.res), query.limit + 1, query.cursor);
    const { page, nextCursor } = paginate(found, query.limit);
    return {
      data: {
        batches: page.map(presentBatch),
        next_cursor: nextCursor,
      },
    };
  },
});

const cancelBatchRoute = route({
  method: "post",
  path: "/batches/{batchId}/cancel",
  tags,
  summary: "Cancel a batch: lines not started end canceled, its runs are canceled",
  description:
    "Lines not yet admitted end canceled (no charge); runs waiting or executing are canceled, each charged what it delivered (the partial-cancel rules). The batch is canceling until they have ended, then canceled. A batch that has ended is answered as it is.",
  params: byId,
  errors: [404],
  reply: { status: 200, schema: R.BatchResponse, description: "The batch, canceling" },
  async handler({ params }, ctx) {
    const batch = await cancelBatch(
      { db: ctx.deps.db, runs: ctx.deps.runs, logger: ctx.deps.logger },
      ownerOf(ctx.res),
      params.batchId,
    );
    if (!batch) throw new ApiError("BATCH_NOT_FOUND", `No batch with id ${JSON.stringify(params.batchId)}.`);
    return { data: presentBatch(batch) };
  },
});

const resultsRoute = (which: "results" | "errors") =>
  rawRoute({
    method: "get",
    path: `/batches/{batchId}/${which}`,
    tags,
    summary:
      which === "results"
        ? "A batch's results: one JSON line per ended item, in line order"
        : "A batch's errors: the lines of its results that did not complete",
    description:
      "application/jsonl: one BatchResultLine a line, per item that has ended (items still waiting or running are not in it yet).",
    params: byId,
    errors: [404],
    responses: {
      200: {
        description: "JSON Lines: each line one BatchResultLine",
        content: { "application/jsonl": { schema: R.BatchResultLineView } },
      },
    },
    async handler({ params }, ctx) {
      const batch = await batchOr404(ctx, params.batchId);
      const { res } = ctx;
      res.status(200).type("application/jsonl");
      for await (const line of batchResults(ctx.deps.db, batch.id, which))
        if (!res.write(`${JSON.stringify(line)}\n`)) await new Promise((r) => res.once("drain", r));
      res.end();
    },
  });

export const batchRoutes: Route[] = [
  createBatchRoute,
  listBatchesRoute,
  getBatch,
  cancelBatchRoute,
  resultsRoute("results"),
  resultsRoute("errors"),
];
