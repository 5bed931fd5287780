import express, { Router, type RequestHandler } from "express";
import { ApiError } from "@svc/core";
import { checkJsonBody } from "./boundary.js";
import { expressPath, type Route } from "./route.js";

/** Content codings a JSON body may come in; the body limit applies to the decoded size. */
const BODY_CODINGS = new Set(["identity", "gzip", "deflate"]);

/**
 * 415 for a body that is not JSON, or that comes in a coding other than gzip or deflate (brotli
 * and the rest are refused up front, with a clear answer, rather than failing in the parser);
 * requests without a body (GET, a bare POST) pass.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.get("content-length") ?? 0) > 0 || req.get("transfer-encoding") !== undefined;
  if (!hasBody) return next();
  if (!req.is("application/json"))
    return next(
      new ApiError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Request bodies must be JSON, sent with Content-Type: application/json.",
      ),
    );
  const codings = (req.get("content-encoding") ?? "identity").split(",").map((c) => c.trim().toLowerCase());
  if (!codings.every((c) => BODY_CODINGS.has(c)))
    return next(
      new ApiError(
        "UNSUPPORTED_MEDIA_TYPE",
        `Unsupported Content-Encoding ${JSON.stringify(req.get("content-encoding"))}; send the body as is, or gzip or deflate.`,
      ),
    );
  next();
};

export const parseJsonBody = (limitBytes: number): RequestHandler =>
  express.json({ limit: limitBytes, type: "application/json", strict: false });

/** Turns body-parser's errors into the contract's codes. */
export function bodyParserError(error: unknown, limitBytes: number): ApiError | null {
  const type = (error as { type?: string } | null)?.type;
  switch (type) {
    case "entity.too.large":
      return new ApiError(
        "PAYLOAD_TOO_LARGE",
        `Request body is larger than the limit of ${limitBytes} bytes.`,
      );
    case "entity.parse.failed":
      return new ApiError("INVALID_JSON", "Request body is not valid JSON.");
    case "charset.unsupported":
    case "encoding.unsupported":
      return new ApiError("UNSUPPORTED_MEDIA_TYPE", "Unsupported body charset or content encoding.");
    case "request.aborted":
    case "request.size.invalid":
      return new ApiError("VALIDATION_ERROR", "Request body was incomplete.");
    default:
      return null;
  }
}

/**
 * Any other error that a framework part (router, body-parser, serve-static) marked as the client's
 * fault keeps its 4xx meaning: a path the router could not decode is a 400, a file that is not
 * there a 404. Only its status is trusted; its message is ours.
 */
export function clientError(error: unknown): ApiError | null {
  const {
    status,
    statusCode,
    code: errorCode,
  } = (error ?? {}) as {
    status?: unknown;
    statusCode?: unknown;
    code?: unknown;
  };
  // Node's HTTP parser refused the bytes that followed (a body sent without framing, say): the
  // connection is closed with a 400, and a response still being sent (a file) reports the error.
  if (typeof errorCode === "string" && errorCode.startsWith("HPE_"))
    return new ApiError("VALIDATION_ERROR", "Malformed HTTP request.");
  const code = typeof status === "number" ? status : statusCode;
  if (typeof code !== "number" || code < 400 || code > 499) return null;
  switch (code) {
    case 404:
      return new ApiError("NOT_FOUND", "Not found.");
    case 413:
      return new ApiError("PAYLOAD_TOO_LARGE", "Request is too large.");
    case 415:
      return new ApiError("UNSUPPORTED_MEDIA_TYPE", "Unsupported media type.");
    case 416:
      return new ApiError("RANGE_NOT_SATISFIABLE", "The Range asked for is not within the file.");
    default:
      return new ApiError("VALIDATION_ERROR", "Malformed request.");
  }
}

/** The media types of a JSON Lines body. */
export const JSON_LINES_TYPES = ["application/jsonl", "application/x-ndjson", "application/jsonlines"];

/**
 * The JSON body middleware (415 for other bodies, parsing, the boundary's checks), except on the
 * routes declared to take a file (`upload`) or a multipart form (`form`), whose handlers read the
 * request themselves. `prefix`:
 * where the routes sit below the mount these run at (the console's /:mode).
 */
export function jsonBodies(limitBytes: number, routes: readonly Route[], prefix = ""): RequestHandler[] {
  const uploads = Router();
  for (const { declaration: d } of routes)
    if (d.upload || d.form || d.lines)
      uploads[d.method](`${prefix}${expressPath(d.path)}`, (req, res, next) => {
        // A form route takes JSON as any route does, and a multipart form as an upload; a lines
        // route takes JSON too, and JSON Lines as a stream.
        res.locals.upload =
          d.upload ||
          (d.form && typeof req.is("multipart/form-data") === "string") ||
          (d.lines && typeof req.is(JSON_LINES_TYPES) === "string");
        next();
      });
  const unlessUpload =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) =>
      res.locals.upload ? next() : handler(req, res, next);
  return [uploads, ...[requireJsonBody, parseJsonBody(limitBytes), checkJsonBody].map(unlessUpload)];
}
