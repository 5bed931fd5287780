import { access } from "node:fs/promises";
import { join } from "node:path";
import type { RequestHandler } from "express";
import { ApiError, EXPIRED_MARKER, OUTPUT_TOKEN } from "@svc/core";

/**
 * After the static files: a file that is not there because retention deleted it (its directory
 * holds the worker's marker) is 410 OUTPUT_EXPIRED; anything else falls through to the JSON 404.
 */
export function expiredOutputs(outputDir: string): RequestHandler {
  return async (req, _res, next) => {
    const token = /^\/([^/]+)\/[^/]+$/.exec(req.path)?.[1];
    if (!token || !OUTPUT_TOKEN.test(token)) return next();
    const expired = await access(join(outputDir, token, EXPIRED_MARKER)).then(
      () => true,
      () => false,
    );
    if (!expired) return next();
    throw new ApiError(
      "OUTPUT_EXPIRED",
      "This output was deleted after the retention period (OUTPUT_RETENTION_DAYS) and is gone.",
    );
  };
}
