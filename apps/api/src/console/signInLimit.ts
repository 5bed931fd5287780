import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "@svc/core";

const WINDOW_SECONDS = 15 * 60;

export interface SignInLimit {
  /** Counts an attempt for this email and address; throws 429 when either is over its budget. */
  attempt(email: string, ip: string): Promise<void>;
  /** A successful sign-in clears the email's count (the address keeps its own). */
  succeeded(email: string): Promise<void>;
}

/**
 * Sign-in attempts per email (guessing one person's password) and per client address (trying
 * many emails), in Redis so every replica shares them; per process while Redis is away.
 */
export function signInLimit(redis: Redis, prefix: string, perEmail: number, perAddress: number): SignInLimit {
  const limiter = (name: string, points: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:rl:signin:${name}`,
      points,
      duration: WINDOW_SECONDS,
      insuranceLimiter: new RateLimiterMemory({
        keyPrefix: `signin:${name}`,
        points,
        duration: WINDOW_SECONDS,
      }),
    });
  const byEmail = limiter("email", perEmail);
  const byAddress = limiter("ip", perAddress);
  return {
    async attempt(email, ip) {
      try {
        await Promise.all([byEmail.consume(email.toLowerCase()), byAddress.consume(ip)]);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        throw new ApiError(
          "RATE_LIMITED",
          `Too many sign-in attempts; try again in ${Math.ceil(Number(retryAfter) / 60)} min.`,
          undefined,
          { "Retry-After": retryAfter },
        );
      }
    },
    async succeeded(email) {
      await byEmail.delete(email.toLowerCase()).catch(() => {});
    },
  };
}
