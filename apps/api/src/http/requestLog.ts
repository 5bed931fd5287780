import type { RequestHandler } from "express";
import type { Logger } from "@svc/logger";

/** One line per request when it ends; a request whose connection closed before the response ended is logged as aborted. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const line = () => ({
      request_id: res.locals.requestId,
      method: req.method,
      path: req.path,
      route: req.route?.path,
      status: res.statusCode,
      duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      account_id: res.locals.auth?.accountId,
    });
    res.on("finish", () => logger.http("request", line()));
    res.on("close", () => {
      if (!res.writableFinished) logger.warn("request aborted before its response was complete", line());
    });
    next();
  };
}
