import { access } from "node:fs/promises";
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { ApiError, EXPIRED_MARKER, OUTPUT_TOKEN, servedMediaType } from "@svc/core";

/**
 * An output is shown inline only as one of the allowed media types, never sniffed, and under a
 * CSP that lets nothing run: a model that returns HTML or SVG cannot script the API's origin.
 * Anything else is a download. (send sets no Content-Type of its own once one is set here.)
 */
export function outputFileHeaders(res: ServerResponse, path: string): void {
  const type = servedMediaType(path);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Content-Security-Policy", "default-src 'none'; sandbox");
  res.setHeader("Content-Type", type ?? "application/octet-stream");
  if (!type) res.setHeader("Content-Disposition", "attachment");
}

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
