import type { RequestHandler } from "express";
import type { Logger } from "@svc/logger";

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      logger.http("request", {
        request_id: res.locals.requestId,
        method: req.method,
        path: req.path,
        route: req.route?.path,
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        account_id: res.locals.auth?.accountId,
      });
    });
    next();
  };
}
