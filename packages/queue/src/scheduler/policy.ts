// The seam for the fairness policy: which waiting account's run starts next on a busy pool. The
// scheduler's state scripts (lua/state.lua) call only the four functions a policy's Lua defines;
// a policy also says where a waiting run stands, for its start estimate. Stride scheduling
// (stride/) is the one in use; another (strict priority, FIFO across accounts) would be a folder
// beside it with the same shape.
import type { RedisClient } from "../redis.js";

export interface SchedulingPolicy {
  /**
   * Lua defining a table `policy` with join(pool, account), leave(pool, account),
   * next(pool, eligible) -> account, turn (nil when none is eligible), charge(pool, account, turn).
   * Given before it: P (the root) and K (keys.ts).
   */
  lua: string;
  /** How many runs of the pool start before a waiting run; null when it is not waiting. */
  runsBefore(pool: string, runId: string): Promise<number | null>;
}

export type PolicyFactory = (redis: RedisClient, root: string) => SchedulingPolicy;
