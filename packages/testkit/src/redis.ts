import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A queue prefix of its own for each test file, so files never see each other's jobs. */
export function testQueuePrefix(): string {
  return `t_${randomBytes(6).toString("hex")}`;
}

export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/** A TCP port on 127.0.0.1 where nothing listens, for "dependency is down" tests. */
export const DEAD_REDIS_URL = "redis://127.0.0.1:1";

/** The secrets key of this test file's API and worker processes (they must share it). */
export const TEST_SECRETS_KEY = randomBytes(32).toString("base64");
