// pnpm bench:runs [--runs N] [--concurrency C] [--worker-concurrency W]
// Real API and worker processes on a fresh database and queue prefix; the 0-delay image model
// (test/instant, 1 image of 1024x1024 per run). Prints creations/s, completions/s and p50/p99 of
// creation latency and of created -> started. Traffic goes to 127.0.0.1 only, bounded in count.
import { parseArgs } from "node:util";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAccountWithKeys,
  createTestDatabase,
  deleteRedisPrefix,
  seedTestModels,
  spawnApp,
  testQueuePrefix,
  TEST_REDIS_URL,
  TEST_SECRETS_KEY,
  waitFor,
} from "../../packages/testkit/dist/index.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "32" },
    "worker-concurrency": { type: "string", default: "8" },
    // Start the worker only after every run is created: creation alone, without the worker's CPU.
    "create-first": { type: "boolean", default: false },
  },
});
const RUNS = Number(values.runs);
const CONCURRENCY = Number(values.concurrency);
const PORT = 3900 + Math.floor(Math.random() * 90);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (n) => `${n.toFixed(1)} ms`;

const database = await createTestDatabase();
const prefix = testQueuePrefix();
const outputDir = await mkdtemp(join(tmpdir(), "svc-bench-"));
const env = {
  DATABASE_URL: database.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: prefix,
  SECRETS_KEY: TEST_SECRETS_KEY,
  METRICS_PORT: "0",
  OUTPUT_DIR: outputDir,
  PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
  LOG_LEVEL: "warn",
  DATABASE_POOL_SIZE: "20",
};
const api = spawnApp("api", {
  ...env,
  PORT: String(PORT),
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  RATE_LIMIT_PER_MINUTE: "10000000",
  RATE_LIMIT_RUNS_PER_MINUTE: "10000000",
});
const startWorker = () =>
  spawnApp("worker", { ...env, LOG_LEVEL: "info", WORKER_CONCURRENCY: values["worker-concurrency"] });
let worker = values["create-first"] ? undefined : startWorker();
try {
  await seedTestModels(database.db);
  const { account, liveKey } = await createAccountWithKeys(database.db, RUNS * 10);
  await api.waitForLine((l) => l.message === "api listening");
  await worker?.waitForLine((l) => l.message === "worker ready");

  const latencies = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        next++;
        const t0 = performance.now();
        const res = await fetch(`http://127.0.0.1:${PORT}/api/v1/models/test/instant/run`, {
          method: "POST",
          headers: { Authorization: `Bearer ${liveKey}`, "Content-Type": "application/json" },
          body: JSON.stringify({ input: { prompt: `benchmark run ${next}` } }),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== 201) failed++;
      }
    }),
  );
  const createdSeconds = (performance.now() - started) / 1000;
  worker ??= startWorker();
  await waitFor(
    async () =>
      (await database.db.run.count({ where: { accountId: account.id, status: "COMPLETED" } })) ===
      RUNS - failed,
    {
      timeoutMs: 600_000,
      intervalMs: 200,
      what: "all runs to complete",
    },
  );
  const completedSeconds = (performance.now() - started) / 1000;
  const runs = await database.db.run.findMany({
    where: { accountId: account.id },
    select: { createdAt: true, startedAt: true },
  });
  const queueWait = runs.map((r) => r.startedAt.getTime() - r.createdAt.getTime()).sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  const totals = await database.db.account.findUniqueOrThrow({ where: { id: account.id } });

  console.log(
    `runs: ${RUNS} (client concurrency ${CONCURRENCY}, worker concurrency ${values["worker-concurrency"]}, 1 API + 1 worker process), non-201: ${failed}`,
  );
  console.log(
    `created:   ${(RUNS / createdSeconds).toFixed(0)} runs/s   latency p50 ${ms(pct(latencies, 50))}  p99 ${ms(pct(latencies, 99))}`,
  );
  console.log(
    `completed: ${(RUNS / completedSeconds).toFixed(0)} runs/s   (first request to last completion: ${completedSeconds.toFixed(1)} s)`,
  );
  if (values["create-first"])
    console.log(
      "(--create-first: the worker started after the last creation, so created -> started includes that wait)",
    );
  console.log(`created -> started: p50 ${ms(pct(queueWait, 50))}  p99 ${ms(pct(queueWait, 99))}`);
  console.log(
    `ledger: balance ${totals.balance} (charged ${RUNS * 10 - totals.balance}), reserved ${totals.reserved}`,
  );
} finally {
  api.child.kill("SIGTERM");
  worker.child.kill("SIGTERM");
  await Promise.all([api.exited, worker.exited]);
  await deleteRedisPrefix(prefix);
  await database.drop();
  await rm(outputDir, { recursive: true, force: true });
}
