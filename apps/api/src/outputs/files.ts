import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import express, { Router, type RequestHandler } from "express";
import { z } from "zod";
import { ApiError, OUTPUT_MEDIA_TYPES, OUTPUT_NAME, OUTPUT_TOKEN, servedMediaType } from "@svc/core";
import type { Logger } from "@svc/logger";
import { RangeNotSatisfiable, type OutputStore, type S3OutputStore } from "@svc/storage";
import { perApp, rawRoute, type Route } from "../http/route.js";

/**
 * An output is shown inline only as one of the allowed media types, never sniffed, and under a
 * CSP that lets nothing run: a model that returns HTML or SVG cannot script the API's origin.
 * Anything else is a download. (send sets no Content-Type of its own once one is set here.)
 */
function outputFileHeaders(res: ServerResponse, path: string): void {
  const type = servedMediaType(path);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Content-Security-Policy", "default-src 'none'; sandbox");
  res.setHeader("Content-Type", type ?? "application/octet-stream");
  if (!type) res.setHeader("Content-Disposition", "attachment");
}

// Outputs never change once written (a re-run writes under a new token).
const CACHE_CONTROL = "public, max-age=604800, immutable";

function storeAway(logger: Logger, requestId: unknown, error: unknown): ApiError {
  logger.warn("output store unavailable", { request_id: requestId, error });
  return new ApiError("SERVICE_UNAVAILABLE", "The output store cannot be reached; try again shortly.");
}

/**
 * Bucket objects streamed through the API, with the client's Range and conditions passed on (a
 * video seeks with Range requests): what OUTPUT_URLS=proxied serves from an S3 store.
 */
function fromBucket(store: S3OutputStore, logger: Logger): RequestHandler {
  return async (req, res, next) => {
    const { token, name } = req.params as { token: string; name: string };
    if (!OUTPUT_TOKEN.test(token) || !OUTPUT_NAME.test(name)) return next();
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    let object;
    try {
      object = await store.read(
        `${token}/${name}`,
        {
          range: req.get("range"),
          ifNoneMatch: req.get("if-none-match"),
          ifModifiedSince: req.get("if-modified-since"),
        },
        gone.signal,
      );
    } catch (error) {
      if (error instanceof RangeNotSatisfiable)
        throw new ApiError(
          "RANGE_NOT_SATISFIABLE",
          "The Range asked for is not within the file.",
          undefined,
          {
            "Content-Range": "bytes */*",
          },
        );
      throw storeAway(logger, res.locals.requestId, error);
    }
    if (!object) return next();
    outputFileHeaders(res, name);
    res.status(object.status).set(object.headers).set("Cache-Control", CACHE_CONTROL);
    if (!object.body || req.method === "HEAD") {
      object.body?.destroy();
      return void res.end();
    }
    // A client that leaves early ends the copy; nothing is left to answer then.
    await pipeline(object.body, res).catch(() => {});
  };
}

/**
 * The outputs of the configured store, served by the API. A file that is not there because
 * retention deleted it is 410 OUTPUT_EXPIRED; anything else falls through to the JSON 404.
 */
function outputFiles(store: OutputStore, logger: Logger): Router {
  const router = Router();
  if (store.kind === "local")
    router.use(
      express.static(store.dir, {
        index: false,
        dotfiles: "ignore",
        immutable: true,
        maxAge: "7d",
        setHeaders: outputFileHeaders,
      }),
    );
  else router.get("/:token/:name", fromBucket(store, logger));
  router.get("/:token/:name", async (req, res, next) => {
    const { token } = req.params;
    if (!OUTPUT_TOKEN.test(token)) return next();
    const expired = await store.isExpired(token).catch((error: unknown) => {
      throw storeAway(logger, res.locals.requestId, error);
    });
    if (!expired) return next();
    throw new ApiError(
      "OUTPUT_EXPIRED",
      "This output was deleted after the retention period (OUTPUT_RETENTION_DAYS) and is gone.",
    );
  });
  return router;
}

const served = perApp(({ outputs, logger }) => outputFiles(outputs.store, logger));

/** Where output files are served: PUBLIC_BASE_URL/files/<token>/<name>. */
export const FILES_PREFIX = "/files";

const binary = { schema: { type: "string" as const, format: "binary" } };

export const fileRoutes: Route[] = [
  rawRoute({
    method: "get",
    path: "/{token}/{name}",
    tags: ["Runs"],
    summary: "A run's output file (public, unguessable URL; no key)",
    description:
      "Streamed from the configured store (a local directory or an S3-compatible bucket), with Range and conditional requests. With OUTPUT_URLS=signed, runs show presigned bucket URLs instead, made at each read; this path keeps serving the same files.",
    params: z.object({
      token: z.string().meta({ example: "out_70roCqjUmmTprm0UySY0KD" }),
      name: z.string().meta({ example: "0.png" }),
    }),
    security: [],
    errors: [400, 404, 410, 416, 503],
    responses: {
      200: {
        description:
          "The file, inline with its media type when it is one of the allowed output types; anything else as an application/octet-stream attachment. Always with X-Content-Type-Options: nosniff and Content-Security-Policy: default-src 'none'; sandbox.",
        content: Object.fromEntries(
          [...new Set(Object.values(OUTPUT_MEDIA_TYPES)), "application/octet-stream"].map((type) => [
            type,
            binary,
          ]),
        ),
      },
      206: {
        description: "The part asked for with Range (Content-Range says which).",
        content: { "application/octet-stream": binary },
      },
      304: { description: "Not modified (If-None-Match or If-Modified-Since)." },
    },
    handler: (_input, { req, res, next, deps }) => {
      served(deps)(req, res, next);
    },
  }),
];
