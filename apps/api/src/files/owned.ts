// The caller's input files as every API style reads them (ours at /api/v1/files, Replicate's at
// /replicate/v1/files): by id or a page at a time, in the key's mode.
import { z } from "zod";
import { ApiError } from "@svc/core";
import { findFile, listFiles } from "@svc/use-cases";
import { ownerOf } from "../auth/authenticate.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import type { RouteContext } from "../http/route.js";
import { pageLimit } from "../http/validate.js";

export const fileNotFound = (id: string) =>
  new ApiError(
    "FILE_NOT_FOUND",
    `No file with id ${JSON.stringify(id)} (it may have been deleted or expired).`,
  );
export const fileOwner = ({ res }: RouteContext) => ownerOf(res);
export const fileOr404 = async (ctx: RouteContext, id: string) =>
  (await findFile(ctx.deps.db, fileOwner(ctx), id)) ?? Promise.reject(fileNotFound(id));

export const listQuery = z.object({ limit: pageLimit, cursor: cursorSchema });

/** A page of the caller's files, newest first, and the cursor of the next. */
export const filesPage = async (ctx: RouteContext, query: z.output<typeof listQuery>) =>
  paginate(await listFiles(ctx.deps.db, fileOwner(ctx), query.limit + 1, query.cursor), query.limit);
