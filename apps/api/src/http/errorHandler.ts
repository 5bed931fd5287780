import type { ErrorRequestHandler, Request, RequestHandler, Response } from "express";
import { ApiError, isDependencyDown } from "@svc/core";
import type { Logger } from "@svc/logger";
import { bodyParserError, clientError } from "./jsonBody.js";

export const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError("NOT_FOUND", `No route for ${req.method} ${req.path}.`));
};

/** Any error as the contract's ApiError: its own, the framework's 4xx, a dependency away, or a 500. */
export function toApiError(error: unknown, bodyLimitBytes: number): ApiError {
  if (error instanceof ApiError) return error;
  return (
    bodyParserError(error, bodyLimitBytes) ??
    clientError(error) ??
    (isDependencyDown(error)
      ? new ApiError("SERVICE_UNAVAILABLE", "A dependency of the service is unavailable; retry shortly.")
      : new ApiError("INTERNAL_ERROR", "An unexpected error occurred."))
  );
}

/**
 * How an API style answers an error: its status for each of our errors, and its body (headers
 * are set already: the error's own, and WWW-Authenticate or Retry-After where they apply).
 */
export interface ErrorStyle {
  status(error: ApiError): number;
  body(error: ApiError, res: Response): unknown;
}

/** Ours: the contract's statuses and `{ error: { code, message, details?, request_id } }`. */
export const CONTRACT_ERRORS: ErrorStyle = {
  status: (apiError) => apiError.status,
  body: (apiError, res) => ({
    error: {
      code: apiError.code,
      message: apiError.message,
      ...(apiError.details?.length ? { details: apiError.details } : {}),
      request_id: res.locals.requestId,
    },
  }),
};

/** The one place where errors become responses: never a stack or SQL, in the API style's shape. */
export function errorHandler(
  logger: Logger,
  bodyLimitBytes: number,
  styleOf: (req: Request) => ErrorStyle | undefined = () => undefined,
): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const style = styleOf(req) ?? CONTRACT_ERRORS;
    const apiError = toApiError(error, bodyLimitBytes);
    if (apiError.status >= 500) {
      logger.error("request failed", { request_id: res.locals.requestId, code: apiError.code, error });
    }
    if (res.headersSent) return;
    if (apiError.code === "UNAUTHORIZED") res.set("WWW-Authenticate", 'Bearer realm="api"');
    if (apiError.code === "SERVICE_UNAVAILABLE") res.set("Retry-After", "5");
    for (const [name, value] of Object.entries(apiError.headers ?? {})) res.set(name, value);
    // A file route may have set its own type (an output's) before it failed: errors are JSON.
    res.removeHeader("Content-Disposition");
    res.type("application/json");
    res.status(style.status(apiError)).json(style.body(apiError, res));
  };
}
