import type { RequestHandler, Response } from "express";
import type { RedisClient } from "@svc/queue";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "@svc/core";
import { authOf, principalOf } from "../auth/authenticate.js";

export interface RateLimitOptions {
  redis: RedisClient;
  prefix: string;
  perMinute: number;
  runsPerMinute: number;
  windowSeconds: number;
}

/** The limiters of the API: one for every request, one mounted on the run-creation route itself. */
export interface RateLimits {
  all: RequestHandler;
  runCreation: RequestHandler;
}

/**
 * Fixed one-minute windows per API key, counted in Redis so that every API replica shares them
 * (rate-limiter-flexible). Run creation has its own, lower budget on top of the overall one,
 * enforced by the route that creates runs (so every spelling Express routes there - any case, a
 * trailing slash - counts). If Redis fails, an in-process limiter with the same budget takes over
 * (per replica) rather than letting requests through unlimited or failing them.
 */
export function rateLimits({
  redis,
  prefix,
  perMinute,
  runsPerMinute,
  windowSeconds,
}: RateLimitOptions): RateLimits {
  const per = windowSeconds === 60 ? "minute" : `${windowSeconds} s`;
  const bucket = (name: string, limit: number, what: string): RequestHandler => {
    const limiter = redisLimiter(redis, prefix, name, limit, windowSeconds);
    return async (_req, res, next) => {
      try {
        headers(res, limit, await limiter.consume(principalOf(authOf(res))));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        headers(res, limit, rejection);
        throw limited(rejection, `Too many ${what} for this API key: ${limit} per ${per}.`);
      }
      next();
    };
  };
  return {
    all: bucket("all", perMinute, "requests"),
    runCreation: bucket("runs", runsPerMinute, "run creations"),
  };
}

/** A limiter counted in Redis, with an in-process one of the same budget while Redis fails. */
export function redisLimiter(
  redis: RedisClient,
  prefix: string,
  name: string,
  points: number,
  duration: number,
) {
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}:rl:${name}`,
    points,
    duration,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `rl:${name}`, points, duration }),
  });
}

function headers(res: Response, limit: number, state: RateLimiterRes) {
  res.set({
    "RateLimit-Limit": String(limit),
    "RateLimit-Remaining": String(Math.max(0, state.remainingPoints)),
    "RateLimit-Reset": String(Math.ceil(state.msBeforeNext / 1000)),
  });
}

/** The 429 for a spent budget, with Retry-After when it comes back. */
export function limited(
  state: Pick<RateLimiterRes, "msBeforeNext">,
  message: string,
  code: "RATE_LIMITED" | "TEST_RUN_QUOTA_EXCEEDED" = "RATE_LIMITED",
): ApiError {
  const retryAfter = String(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
  return new ApiError(code, `${message} Retry in ${retryAfter} s.`, undefined, {
    "Retry-After": retryAfter,
  });
}

/**
 * Failed authentications per client address, shared by the replicas: an address that keeps
 * failing is told 429 for its failures. It never stands between a valid key and its lookup.
 */
export interface AuthFailureLimit {
  /** Counts a failure; throws RATE_LIMITED when the address is past its failures for the window. */
  failed(ip: string): Promise<void>;
}

export function authFailureLimit(
  redis: RedisClient,
  prefix: string,
  perWindow: number,
  windowSeconds: number,
): AuthFailureLimit {
  const limiter = redisLimiter(redis, prefix, "authfail", perWindow, windowSeconds);
  return {
    async failed(ip) {
      try {
        await limiter.consume(ip);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw limited(rejection, "Too many failed authentications from this address.");
      }
    },
  };
}
