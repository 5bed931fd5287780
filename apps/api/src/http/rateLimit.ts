import type { RequestHandler, Response } from "express";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "@svc/core";
import { authOf } from "../auth/authenticate.js";

export interface RateLimitOptions {
  redis: Redis;
  prefix: string;
  perMinute: number;
  runsPerMinute: number;
  windowSeconds: number;
}

/**
 * Fixed one-minute windows per API key, counted in Redis so that every API replica shares them
 * (rate-limiter-flexible). Run creation has its own, lower budget on top of the overall one.
 * If Redis fails, an in-process limiter with the same budget takes over (per replica) rather
 * than letting requests through unlimited or failing them.
 */
export function rateLimit({
  redis,
  prefix,
  perMinute,
  runsPerMinute,
  windowSeconds,
}: RateLimitOptions): RequestHandler {
  const limiter = (name: string, points: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:rl:${name}`,
      points,
      duration: windowSeconds,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: `rl:${name}`, points, duration: windowSeconds }),
    });
  const per = windowSeconds === 60 ? "minute" : `${windowSeconds} s`;
  const overall = limiter("all", perMinute);
  const runs = limiter("runs", runsPerMinute);

  const headers = (res: Response, limit: number, state: RateLimiterRes) => {
    res.set({
      "RateLimit-Limit": String(limit),
      "RateLimit-Remaining": String(Math.max(0, state.remainingPoints)),
      "RateLimit-Reset": String(Math.ceil(state.msBeforeNext / 1000)),
    });
  };

  return async (req, res, next) => {
    const key = authOf(res).keyId;
    const creatingRun = req.method === "POST" && /^\/models\/.+\/run$/.test(req.path);
    const checks: [RateLimiterRedis, number][] = creatingRun
      ? [
          [overall, perMinute],
          [runs, runsPerMinute],
        ]
      : [[overall, perMinute]];
    for (const [bucket, limit] of checks) {
      try {
        headers(res, limit, await bucket.consume(key));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        headers(res, limit, rejection);
        const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        throw new ApiError(
          "RATE_LIMITED",
          `Too many ${bucket === runs ? "run creations" : "requests"} for this API key: ${limit} per ${per}. Retry in ${retryAfter} s.`,
          undefined,
          { "Retry-After": retryAfter },
        );
      }
    }
    next();
  };
}
