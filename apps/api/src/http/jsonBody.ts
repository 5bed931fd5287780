import express, { type RequestHandler } from "express";
import { ApiError } from "@svc/core";

/** 415 for a body that is not JSON; requests without a body (GET, a bare POST) pass. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.get("content-length") ?? 0) > 0 || req.get("transfer-encoding") !== undefined;
  if (hasBody && !req.is("application/json")) {
    next(
      new ApiError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Request bodies must be JSON, sent with Content-Type: application/json.",
      ),
    );
    return;
  }
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
