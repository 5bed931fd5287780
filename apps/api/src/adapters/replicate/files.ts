// Replicate's files API over our input files (the same files as /api/v1/files).
import { z } from "zod";
import { presentReplicateFile } from "@svc/core";
import { deleteInputFile } from "@svc/use-cases";
import { rawRoute, route } from "../../http/route.js";
import { sendInputFile } from "../../outputs/files.js";
import { receiveUpload } from "../../http/upload.js";
import { fileOr404, fileOwner, filesPage, listQuery } from "../../files/owned.js";
import * as S from "./schemas.js";

import { base, tags } from "./shared.js";

export const uploadFile = route({
  method: "post",
  path: "/files",
  tags,
  summary: "Upload a file (Replicate's files.create: multipart `content`); its urls.get is a file input",
  description:
    "The same files as POST /api/v1/files (types decided by the bytes, FILE_MAX_BYTES, kept FILE_RETENTION_HOURS). Replicate's clients upload Blob and Buffer inputs here by themselves and put the answer's urls.get in the input.",
  upload: true,
  errors: [413, 415],
  reply: { status: 201, schema: S.ReplicateFile, description: "The stored file" },
  handler: async (_input, ctx) => presentReplicateFile(await receiveUpload(ctx), base(ctx.deps)),
});

export const listFilesRoute = route({
  method: "get",
  path: "/files",
  tags,
  summary: "List files, newest first",
  query: listQuery,
  reply: { status: 200, schema: S.FilePage, description: "A page of the caller's files" },
  async handler({ query }, ctx) {
    const { page, nextCursor } = await filesPage(ctx, query);
    return {
      previous: null,
      next: nextCursor && `${base(ctx.deps)}/files?cursor=${nextCursor}&limit=${query.limit}`,
      results: page.map((f) => presentReplicateFile(f, base(ctx.deps))),
    };
  },
});

const fileById = z.object({ id: z.string().meta({ example: "file_5bS2vVd1LnZRvYqNZ3H9aA" }) });

export const getFileRoute = route({
  method: "get",
  path: "/files/{id}",
  tags,
  summary: "A file's metadata",
  params: fileById,
  errors: [404],
  reply: { status: 200, schema: S.ReplicateFile, description: "The file" },
  handler: async ({ params }, ctx) => presentReplicateFile(await fileOr404(ctx, params.id), base(ctx.deps)),
});

export const downloadFile = rawRoute({
  method: "get",
  path: "/files/{id}/download",
  tags,
  summary: "A file's bytes",
  params: fileById,
  errors: [404],
  responses: {
    200: { description: "The file", content: { "*/*": { schema: { type: "string", format: "binary" } } } },
  },
  async handler({ params }, ctx) {
    await sendInputFile(ctx.res, ctx.deps, await fileOr404(ctx, params.id), "private, max-age=3600");
  },
});

export const deleteFileRoute = rawRoute({
  method: "delete",
  path: "/files/{id}",
  tags,
  summary: "Delete a file (204)",
  params: fileById,
  errors: [404],
  responses: { 204: { description: "Deleted" } },
  async handler({ params }, ctx) {
    const file = await fileOr404(ctx, params.id);
    await deleteInputFile(ctx.deps.files, fileOwner(ctx), file);
    ctx.res.status(204).end();
  },
});
