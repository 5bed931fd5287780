import type { ErrorRequestHandler, RequestHandler } from "express";
import { ApiError, isDependencyDown } from "@svc/core";
import type { Logger } from "@svc/logger";
import { bodyParserError, clientError } from "./jsonBody.js";

export const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError("NOT_FOUND", `No route for ${req.method} ${req.path}.`));
};

/** The one place where errors become responses: the contract's body, never a stack or SQL. */
export function errorHandler(logger: Logger, bodyLimitBytes: number): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const apiError =
      error instanceof ApiError
        ? error
        : (bodyParserError(error, bodyLimitBytes) ??
          clientError(error) ??
          (isDependencyDown(error)
            ? new ApiError(
                "SERVICE_UNAVAILABLE",
                "A dependency of the service is unavailable; retry shortly.",
              )
            : new ApiError("INTERNAL_ERROR", "An unexpected error occurred.")));
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
    res.status(apiError.status).json({
      error: {
        code: apiError.code,
        message: apiError.message,
        ...(apiError.details?.length ? { details: apiError.details } : {}),
        request_id: res.locals.requestId,
      },
    });
  };
}
