import type { RedisClient } from "@svc/queue";
import { RateLimiterRes } from "rate-limiter-flexible";
import { limited, redisLimiter } from "../http/rateLimit.js";

const WINDOW_SECONDS = 86_400;

/** Where an account stands with its test runs (GET /account shows it). */
export interface TestRunAllowance {
  limit: number;
  used: number;
  /** When the window that began with its first counted test run ends; null before any. */
  resetsAt: Date | null;
}

/**
 * Test runs are free but run real generators and model servers, so an account may start at most
 * TEST_RUNS_PER_DAY of them on compute-costing models per 24 hours, whatever number of test keys
 * it holds: counted per account in Redis (shared by the API replicas), the window opening with the
 * account's first counted run.
 */
export interface TestRunQuota {
  /** Counts one run; throws 429 TEST_RUN_QUOTA_EXCEEDED (with Retry-After) when none is left. */
  take(accountId: string): Promise<void>;
  /** Gives back a run counted for a creation that made none (an Idempotency-Key replay or reuse). */
  giveBack(accountId: string): Promise<void>;
  allowance(accountId: string): Promise<TestRunAllowance>;
}

export function testRunQuota(redis: RedisClient, prefix: string, perDay: number): TestRunQuota {
  const limiter = redisLimiter(redis, prefix, "test-runs", Math.max(1, perDay), WINDOW_SECONDS);
  const exceeded = (state: Pick<RateLimiterRes, "msBeforeNext">) =>
    limited(
      state,
      `This account has started its ${perDay} test runs for the day (TEST_RUNS_PER_DAY), across all of its test keys; acme/echo stays free and unlimited.`,
      "TEST_RUN_QUOTA_EXCEEDED",
    );
  return {
    async take(accountId) {
      if (perDay === 0) throw exceeded({ msBeforeNext: WINDOW_SECONDS * 1_000 });
      try {
        await limiter.consume(accountId);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw exceeded(rejection);
      }
    },
    async giveBack(accountId) {
      await limiter.reward(accountId, 1);
    },
    async allowance(accountId) {
      const state = await limiter.get(accountId);
      return {
        limit: perDay,
        used: Math.min(perDay, Math.max(0, state?.consumedPoints ?? 0)),
        resetsAt: state ? new Date(Date.now() + state.msBeforeNext) : null,
      };
    },
  };
}
