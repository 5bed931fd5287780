import type { ServerResponse } from "node:http";
import type { AppDeps } from "../deps.js";
import { pipeline } from "node:stream/promises";
import { Router, type RequestHandler, type Response } from "express";
import { z } from "zod";
import {
  ApiError,
  inputFileKey,
  inputFileSignatureValid,
  weightsFileKey,
  weightsSignatureValid,
  OUTPUT_MEDIA_TYPES,
  OUTPUT_NAME,
  OUTPUT_TOKEN,
  servedMediaType,
} from "@svc/core";
import { findFilesById, findWeightsBySha } from "@svc/use-cases";
import type { Logger } from "@svc/logger";
import { localFile, RangeNotSatisfiable, type OutputStore, type S3OutputStore } from "@svc/storage";
import { perApp, rawRoute, type Route } from "../http/route.js";
import { secretsKey } from "../secrets.js";

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
 * Files of the local store (its layout: storage's localPath), sent with Range and conditional
 * requests answered (send's, as express.static would); a name that is no output's is no file.
 */
function fromDirectory(dir: string): RequestHandler {
  return async (req, res, next) => {
    const { token, name } = req.params as { token: string; name: string };
    if (!OUTPUT_TOKEN.test(token) || !OUTPUT_NAME.test(name)) return next();
    const found = await localFile(dir, `${token}/${name}`);
    if (!found) return next();
    outputFileHeaders(res, name);
    res.sendFile(found.path, { immutable: true, maxAge: "7d", dotfiles: "allow" }, (error?: Error) => {
      if (!error || res.headersSent) return;
      // As express.static does: a file gone meanwhile (retention) falls through to the 404, other
      // failures (a Range outside the file: 416) go to the error handler.
      if ((error as { status?: number }).status === 404) next();
      else next(error);
    });
  };
}

/**
 * The outputs of the configured store, served by the API. A file that is not there because
 * retention deleted it is 410 OUTPUT_EXPIRED; anything else falls through to the JSON 404.
 */
function outputFiles(store: OutputStore, logger: Logger): Router {
  const router = Router();
  router.get("/:token/:name", store.kind === "local" ? fromDirectory(store.dir) : fromBucket(store, logger));
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

const INPUT_NAME = /^(file_[0-9A-Za-z]{22})\.([a-z0-9]{1,5})$/;

/**
 * An input file as a model server reads it: by a URL the worker signed for a few minutes
 * (FILE_URL_TTL_SECONDS), never by a lasting one; a wrong, expired or foreign signature and a
 * deleted file are all the same 404.
 */
const inputFile = rawRoute({
  method: "get",
  path: "/inputs/{name}",
  tags: ["Files"],
  summary: "An input file, for model servers (a signed URL the worker hands them; no key)",
  params: z.object({ name: z.string().meta({ example: "file_5bS2vVd1LnZRvYqNZ3H9aA.png" }) }),
  query: z.object({
    expires: z.coerce.number().int().meta({ description: "Unix time (s) after which the URL answers 404" }),
    signature: z.string().max(100),
  }),
  security: [],
  errors: [400, 404, 503],
  responses: { 200: { description: "The file, with its media type", content: { "*/*": binary } } },
  async handler({ params, query }, { res, deps }) {
    const match = INPUT_NAME.exec(params.name);
    const id = match?.[1];
    const now = Math.floor(Date.now() / 1000);
    const file =
      id && inputFileSignatureValid(secretsKey(deps), id, query.expires, query.signature, now)
        ? await findFilesById(deps.db, [id]).then((found) => found[0])
        : undefined;
    if (!file || file.deletedAt || file.expiresAt.getTime() <= Date.now())
      throw new ApiError("NOT_FOUND", "No such file, or its URL has expired.");
    await sendInputFile(res, deps, file, "private, no-store");
  },
});

/**
 * An input file's bytes, with its type (decided by its bytes at upload) under a CSP that lets
 * nothing run; 404 when the store no longer has them.
 */
export async function sendInputFile(
  res: Response,
  deps: Pick<AppDeps, "outputs" | "logger">,
  file: { id: string; contentType: string; size: number },
  cacheControl: string,
): Promise<void> {
  const sent = await sendStored(res, deps, inputFileKey(file.id, file.contentType), {
    "Content-Type": file.contentType,
    "Content-Length": String(file.size),
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": cacheControl,
  });
  if (!sent) throw new ApiError("FILE_NOT_FOUND", `No file with id ${JSON.stringify(file.id)}.`);
}

/**
 * A stored file streamed as the answer with `headers` (never sniffed); false, nothing sent, when
 * the store no longer has it. The read stops when the client goes.
 */
async function sendStored(
  res: Response,
  deps: Pick<AppDeps, "outputs" | "logger">,
  key: string,
  headers: Record<string, string>,
): Promise<boolean> {
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const object = await deps.outputs.store.read(key, {}, gone.signal).catch((error: unknown) => {
    throw storeAway(deps.logger, res.locals.requestId, error);
  });
  if (!object?.body) return false;
  res.status(200).set({ ...headers, "X-Content-Type-Options": "nosniff" });
  await pipeline(object.body, res).catch(() => {});
  return true;
}

const WEIGHTS_NAME = /^([0-9a-f]{64})\.safetensors$/;

/**
 * Weights as a model server reads them: by the URL the worker gives it, named by their bytes and
 * signed for a long window (the same URL for every run of a window, so servers that cache by URL
 * load them once); a wrong or expired signature, or bytes no weights hold any more, are one 404.
 */
const weightsFile = rawRoute({
  method: "get",
  path: "/weights/{name}",
  tags: ["Files"],
  summary: "Weights' bytes, for model servers (a signed URL the worker hands them; no key)",
  params: z.object({ name: z.string().meta({ example: `${"a".repeat(64)}.safetensors` }) }),
  query: z.object({
    expires: z.coerce.number().int().meta({ description: "Unix time (s) after which the URL answers 404" }),
    signature: z.string().max(100),
  }),
  security: [],
  errors: [400, 404, 503],
  responses: {
    200: { description: "The safetensors file", content: { "application/octet-stream": binary } },
  },
  async handler({ params, query }, { res, deps }) {
    const sha = WEIGHTS_NAME.exec(params.name)?.[1];
    const now = Math.floor(Date.now() / 1000);
    const weights =
      sha && weightsSignatureValid(secretsKey(deps), sha, query.expires, query.signature, now)
        ? await findWeightsBySha(deps.db, sha)
        : null;
    if (!weights) throw new ApiError("NOT_FOUND", "No such weights, or their URL has expired.");
    // Named by their bytes: what this URL answers never changes.
    const sent = await sendStored(res, deps, weightsFileKey(weights.id), {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(weights.size),
      "Cache-Control": "public, max-age=604800, immutable",
    });
    if (!sent) throw new ApiError("NOT_FOUND", "No such weights, or their URL has expired.");
  },
});

export const fileRoutes: Route[] = [
  inputFile,
  weightsFile,
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
