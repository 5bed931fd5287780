// pnpm bench:crowd [--accounts N] [--runs-each N]
// The scheduler's reads with a crowd waiting, against the real Redis (REDIS_URL, default
// 127.0.0.1:6379): N accounts each with runs waiting for one pool, then how long a queued run's
// place (what GET /runs/{id} and event streams read), the pool's stats (GET /models/{id}, metrics)
// and a slot's release with its dispatch take, as a client sees them. Redis runs one script at a
// time: a read that grows with the crowd holds every other client for as long.
import { parseArgs } from "node:util";
import { createRedis, redisScheduler } from "../../packages/queue/dist/index.js";
import { percentile } from "./service.mjs";

const { values } = parseArgs({
  options: { accounts: { type: "string", default: "10000" }, "runs-each": { type: "string", default: "1" } },
});
const ACCOUNTS = Number(values.accounts);
const EACH = Number(values["runs-each"]);
const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
const prefix = `bench-crowd-${process.pid}`;
const scheduler = redisScheduler(redis, prefix, { leaseMs: 60_000, defaultLimit: 50 });
const pool = "bench/crowd";
const runId = (a, k) => `run_${a}_${k}`;
const timed = async (times, fn) => {
  const t = performance.now();
  await fn();
  times.push(performance.now() - t);
};
const summary = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, max ${sorted.at(-1).toFixed(2)} ms (n=${sorted.length})`;
};

try {
  const t0 = Date.now();
  for (let from = 0; from < ACCOUNTS; from += 500) {
    const batch = [];
    for (let a = from; a < Math.min(ACCOUNTS, from + 500); a++)
      for (let k = 0; k < EACH; k++)
        batch.push({
          runId: runId(a, k),
          pool,
          accountId: `acct_${a}`,
          createdAt: new Date(t0 + a * EACH + k),
          priority: "normal",
          weight: 1,
          maxConcurrentRuns: null,
          keyId: `key_${a}`,
          keyMaxConcurrentRuns: null,
        });
    await scheduler.enqueue(batch);
  }
  const places = [];
  for (let i = 0; i < 100; i++)
    await timed(places, () => scheduler.place(pool, runId(Math.floor(Math.random() * ACCOUNTS), 0)));
  const stats = [];
  for (let i = 0; i < 50; i++) await timed(stats, () => scheduler.stats(pool));
  const releases = [];
  let [current] = await scheduler.setSlots(pool, ["http://gpu#0"]);
  for (let i = 0; i < 50 && current; i++) {
    const done = current.runId;
    await timed(releases, async () => ([current] = await scheduler.release([done])));
  }
  console.log(`${ACCOUNTS * EACH} runs of ${ACCOUNTS} accounts waiting for one pool`);
  console.log(`place of a queued run: ${summary(places)}`);
  console.log(`pool stats: ${summary(stats)}`);
  console.log(`release + dispatch: ${summary(releases)}`);
} finally {
  for (let cursor = "0"; ;) {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    if (keys.length) await redis.del(...keys);
    if ((cursor = next) === "0") break;
  }
  redis.disconnect();
}
