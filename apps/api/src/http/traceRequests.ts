import type { RequestHandler } from "express";
import { SpanKind, SpanStatusCode, type Tracing } from "@svc/telemetry";
import { matchedRoute } from "./observeRequests.js";

/**
 * A server span per request (installed only while tracing is on), child of the caller's W3C
 * traceparent when it sends one. Named by the matched route pattern, never the raw path; the span
 * is in res.locals.span, where run creation reads the traceparent it keeps on the run.
 */
export function traceRequests(tracing: Tracing): RequestHandler {
  return (req, res, next) => {
    const span = tracing.tracer.startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": req.method, "url.path": req.path },
      },
      tracing.contextOf(req.get("traceparent")),
    );
    res.locals.span = span;
    res.once("close", () => {
      const route = matchedRoute(req, res);
      if (route) span.updateName(`${req.method} ${route}`).setAttribute("http.route", route);
      span.setAttributes({
        "http.response.status_code": res.statusCode,
        "svc.request_id": res.locals.requestId,
        ...(res.locals.auth?.accountId && { "svc.account_id": res.locals.auth.accountId }),
      });
      if (res.statusCode >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    next();
  };
}
