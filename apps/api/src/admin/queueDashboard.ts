import type { Request, RequestHandler, Router } from "express";
import { RateLimiterRes } from "rate-limiter-flexible";
import { ApiError, constantTimeEqual } from "@svc/core";
import {
  createDeliveriesQueue,
  createLeasedRunsQueue,
  createRedis,
  createRunsQueue,
  type RedisClient,
  type RedisSettings,
} from "@svc/queue";
import { limited, redisLimiter } from "../http/rateLimit.js";

export const DASHBOARD_PATH = "/admin/queues";

/** Wrong passwords an address may send per 15 minutes before it must wait (the right one too). */
export const DASHBOARD_FAILURES_PER_WINDOW = 10;
const FAILURE_WINDOW_SECONDS = 15 * 60;

// bull-board's page loads its scripts and styles from its own path (plus inline styles) and talks
// to its own API: nothing else, and no other site may frame it.
const HEADERS = {
  "Content-Security-Policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Browsers send Basic credentials with any request to the dashboard, a cross-site form's too, so
 * a change (retry, clean, add a job) must come from the dashboard's own page: JSON (which another
 * site cannot send without a CORS preflight that is never granted) and, where the browser says,
 * from the same origin.
 */
function crossSite(req: Request): boolean {
  if (SAFE_METHODS.has(req.method)) return false;
  if (req.get("sec-fetch-site") === "cross-site") return true;
  const origin = req.get("origin");
  if (origin && origin !== `${req.protocol}://${req.get("host")}`) return true;
  return req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0"
    ? !req.is("application/json")
    : false;
}

/** HTTP Basic with user "admin" and the configured password, compared in constant time. */
function basicAuth(password: string, redis: RedisClient, prefix: string): RequestHandler {
  const expected = `Basic ${Buffer.from(`admin:${password}`).toString("base64")}`;
  const failures = redisLimiter(
    redis,
    prefix,
    "dashboard-auth",
    DASHBOARD_FAILURES_PER_WINDOW,
    FAILURE_WINDOW_SECONDS,
  );
  const tooMany = (state: RateLimiterRes) =>
    limited(state, "Too many wrong operator passwords from this address.");
  return async (req, res, next) => {
    res.set(HEADERS);
    if (crossSite(req)) throw new ApiError("FORBIDDEN", "Cross-site requests to the dashboard are refused.");
    const ip = req.ip ?? "unknown";
    // An address out of tries waits, even with the right password: guessing must stop.
    const state = await failures.get(ip);
    if (state && state.consumedPoints >= DASHBOARD_FAILURES_PER_WINDOW) throw tooMany(state);
    if (constantTimeEqual(req.get("authorization") ?? "", expected)) return next();
    await failures.consume(ip).catch((rejection: unknown) => {
      if (rejection instanceof RateLimiterRes) throw tooMany(rejection);
      throw rejection;
    });
    res
      .set("WWW-Authenticate", 'Basic realm="queues", charset="UTF-8"')
      .status(401)
      .json({
        error: {
          code: "UNAUTHORIZED",
          message: "Operator credentials required.",
          request_id: res.locals.requestId,
        },
      });
  };
}

/**
 * The operators' view of the queues (bull-board): jobs by state, retry, clean. Its own Redis
 * connection, one that waits for Redis, so the dashboard never holds a failed queue handle.
 */
export interface QueueDashboard {
  /** Mount at DASHBOARD_PATH: credentials first, then bull-board. */
  handlers: RequestHandler[];
  close(): Promise<void>;
}

/** bull-board is loaded only here, so an API without a dashboard does not carry it in memory. */
export async function queueDashboard(
  redisSettings: RedisSettings,
  prefix: string,
  password: string,
  /** The API's own connection, for the failed-password counts shared by replicas. */
  redis: RedisClient,
): Promise<QueueDashboard> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import("@bull-board/api"),
    import("@bull-board/api/bullMQAdapter"),
    import("@bull-board/express"),
  ]);
  const connection = createRedis(redisSettings, "worker");
  const queues = [
    createRunsQueue(connection, prefix),
    createLeasedRunsQueue(connection, prefix),
    createRunsQueue(connection, prefix, "batch"),
    createLeasedRunsQueue(connection, prefix, "batch"),
    createDeliveriesQueue(connection, prefix),
  ];
  const serverAdapter = new ExpressAdapter().setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: false })),
    serverAdapter,
  });
  return {
    handlers: [basicAuth(password, redis, prefix), serverAdapter.getRouter() as Router],
    async close() {
      await Promise.allSettled(queues.map((q) => q.close()));
      connection.disconnect();
    },
  };
}
