import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "@svc/logger";
import type { ApiMetrics } from "../metrics.js";

/**
 * The route pattern that answered (`/api/v1/runs/:runId`), or null when none matched. Errors are
 * answered outside their router, where req.baseUrl is gone: routers keep their mount in
 * res.locals.mount for this.
 */
export function matchedRoute(req: Request, res: Response): string | null {
  return req.route?.path ? `${res.locals.mount ?? req.baseUrl}${String(req.route.path)}` : null;
}

/**
 * When a response is done: its latency into the metrics (by matched route pattern, never the raw
 * path), and one log line at level http; a request whose connection closed before its response
 * was complete is logged as aborted. One listener per request: this runs on every call.
 */
export function observeRequests(logger: Logger, metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once("close", () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = matchedRoute(req, res) ?? "unmatched";
      const complete = res.writableFinished;
      if (complete) {
        metrics.httpDuration.observe(
          { method: req.method, route, status: String(res.statusCode) },
          durationMs / 1e3,
        );
        if (!logger.isLevelEnabled("http")) return;
      }
      const line = {
        request_id: res.locals.requestId,
        method: req.method,
        path: req.path,
        route: req.route?.path,
        status: res.statusCode,
        duration_ms: durationMs,
        account_id: res.locals.auth?.accountId,
      };
      if (complete) logger.http("request", line);
      else logger.warn("request aborted before its response was complete", line);
    });
    next();
  };
}
