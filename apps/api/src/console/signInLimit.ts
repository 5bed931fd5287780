import type { RedisClient } from "@svc/queue";
import { RateLimiterRes } from "rate-limiter-flexible";
import { limited, redisLimiter } from "../http/rateLimit.js";

const WINDOW_SECONDS = 15 * 60;
/** Past an email's budget, each address may still try it once this often: the real user's way in. */
export const SIGN_IN_SLOW_LANE_SECONDS = 60;

export interface SignInLimit {
  /** Counts an attempt for this email and address; throws 429 with Retry-After when it must wait. */
  attempt(email: string, ip: string): Promise<void>;
  /** A successful sign-in clears the email's counts (the address keeps its own). */
  succeeded(email: string, ip: string): Promise<void>;
}

/**
 * Sign-in attempts, in Redis so every replica shares them (per process while Redis is away):
 * - per address, SIGN_IN_ATTEMPTS_PER_ADDRESS per 15 minutes (trying many emails);
 * - per email, SIGN_IN_ATTEMPTS_PER_EMAIL per 15 minutes from anywhere; past that the email is not
 *   locked: each address may try it once a minute, so someone guessing a password slows to a
 *   crawl while its owner, from their own address, waits a minute at most.
 */
export function signInLimit(
  redis: RedisClient,
  prefix: string,
  perEmail: number,
  perAddress: number,
): SignInLimit {
  const byAddress = redisLimiter(redis, prefix, "signin:ip", perAddress, WINDOW_SECONDS);
  const byEmail = redisLimiter(redis, prefix, "signin:email", perEmail, WINDOW_SECONDS);
  const slowLane = redisLimiter(redis, prefix, "signin:slow", 1, SIGN_IN_SLOW_LANE_SECONDS);
  const pair = (email: string, ip: string) => `${email.toLowerCase()}|${ip}`;
  const tooMany = (rejection: unknown) => {
    if (!(rejection instanceof RateLimiterRes)) return rejection;
    return limited(rejection, "Too many sign-in attempts; wait a moment and try again.");
  };
  return {
    async attempt(email, ip) {
      await byAddress.consume(ip).catch((rejection: unknown) => {
        throw tooMany(rejection);
      });
      try {
        await byEmail.consume(email.toLowerCase());
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        await slowLane.consume(pair(email, ip)).catch((slow: unknown) => {
          throw tooMany(slow);
        });
      }
    },
    async succeeded(email, ip) {
      await Promise.all([byEmail.delete(email.toLowerCase()), slowLane.delete(pair(email, ip))]).catch(
        () => {},
      );
    },
  };
}
