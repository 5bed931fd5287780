import { z } from "zod";
import { ACCEPTED_FILE_TYPES } from "@svc/core";
import { deleteInputFile, presentFile } from "@svc/use-cases";
import { rawRoute, route, type Route } from "../http/route.js";
import { batchFileIntake, receiveOne, receiveUpload } from "../http/upload.js";
import { fileNotFound, fileOr404, fileOwner, filesPage, listQuery } from "../files/owned.js";
import * as R from "../openapi/responses.js";
import { sendInputFile } from "../outputs/files.js";

const tags = ["Files"];
const fileId = z.string().meta({ example: "file_5bS2vVd1LnZRvYqNZ3H9aA" });
const byId = z.object({ fileId });

const uploadFile = route({
  method: "post",
  path: "/files",
  tags,
  summary: "Upload a file (an image, a video or an audio file) to give as a run's input",
  description: `The body is the file (any Content-Type: the type is decided by the file's bytes), or a multipart/form-data form whose first file part (\`content\`, as Replicate's clients send it) is the file. Taken: ${ACCEPTED_FILE_TYPES.join(", ")}; anything else is 415. Larger than FILE_MAX_BYTES: 413, before the body is read. Images are refused past FILE_MAX_PIXELS (read from the header, never decoded). A file is visible to its account, in the key's mode only, until expires_at (FILE_RETENTION_HOURS).`,
  query: z.object({
    purpose: z.enum(["batch"]).optional().meta({
      description: "batch: the file is a batch's JSON Lines (POST /batches input_file_id), stored as it is",
    }),
  }),
  upload: true,
  errors: [413, 415],
  reply: { status: 201, schema: R.FileResponse, description: "The stored file" },
  async handler({ query }, ctx) {
    const file =
      query.purpose === "batch"
        ? (await receiveOne(ctx, batchFileIntake(ctx))).file
        : await receiveUpload(ctx);
    return { data: presentFile(file, ctx.deps.settings.PUBLIC_BASE_URL) };
  },
});

const listFilesRoute = route({
  method: "get",
  path: "/files",
  tags,
  summary: "List files, newest first",
  query: listQuery,
  reply: { status: 200, schema: R.FileList, description: "A page of the caller's files (of the key's mode)" },
  async handler({ query }, ctx) {
    const { page, nextCursor } = await filesPage(ctx, query);
    const base = ctx.deps.settings.PUBLIC_BASE_URL;
    return { data: { files: page.map((f) => presentFile(f, base)), next_cursor: nextCursor } };
  },
});

const getFile = route({
  method: "get",
  path: "/files/{fileId}",
  tags,
  summary: "A file's metadata",
  params: byId,
  errors: [404],
  reply: { status: 200, schema: R.FileResponse, description: "The file" },
  async handler({ params }, ctx) {
    return { data: presentFile(await fileOr404(ctx, params.fileId), ctx.deps.settings.PUBLIC_BASE_URL) };
  },
});

const fileContent = rawRoute({
  method: "get",
  path: "/files/{fileId}/content",
  tags,
  summary: "A file's bytes",
  params: byId,
  errors: [404],
  responses: {
    200: {
      description: "The file, with its Content-Type",
      content: { "*/*": { schema: { type: "string", format: "binary" } } },
    },
  },
  async handler({ params }, ctx) {
    const file = await fileOr404(ctx, params.fileId);
    await sendInputFile(ctx.res, ctx.deps, file, "private, max-age=3600");
  },
});

const deleteFileRoute = route({
  method: "delete",
  path: "/files/{fileId}",
  tags,
  summary: "Delete a file (runs already made with it fail with INPUT_FILE_UNAVAILABLE if not yet started)",
  params: byId,
  errors: [404],
  reply: { status: 200, schema: R.FileDeleted, description: "Deleted" },
  async handler({ params }, ctx) {
    const file = await fileOr404(ctx, params.fileId);
    if (!(await deleteInputFile(ctx.deps.files, fileOwner(ctx), file))) throw fileNotFound(params.fileId);
    return { data: { id: file.id, deleted: true as const } };
  },
});

export const inputFileRoutes: Route[] = [uploadFile, listFilesRoute, getFile, fileContent, deleteFileRoute];
