// pnpm bench:webhooks [--runs N] [--burst M]
// Real API and worker processes, a local HTTPS receiver on 127.0.0.1 (certificate made here and
// trusted through WEBHOOK_CA_FILE). Phase 1: N runs of the 0-delay model, each with a webhook_url
// and a registered endpoint: p50/p99 from run completion (completed_at) to receipt. Phase 2: a burst
// of M test deliveries to the endpoint: deliveries/s end to end. Bounded, loopback only.
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
  startHttpsReceiver,
  testCertificate,
  testQueuePrefix,
  TEST_REDIS_URL,
  TEST_SECRETS_KEY,
  waitFor,
} from "../../packages/testkit/dist/index.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "300" }, burst: { type: "string", default: "2000" } },
});
const RUNS = Number(values.runs);
const BURST = Number(values.burst);
const PORT = 3900 + Math.floor(Math.random() * 90);
const BASE = `http://127.0.0.1:${PORT}/api/v1`;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const database = await createTestDatabase();
const prefix = testQueuePrefix();
const outputDir = await mkdtemp(join(tmpdir(), "svc-bench-"));
const { caFile } = await testCertificate();
const receiver = await startHttpsReceiver();
const env = {
  DATABASE_URL: database.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: prefix,
  SECRETS_KEY: TEST_SECRETS_KEY,
  METRICS_PORT: "0",
  WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  WEBHOOK_CA_FILE: caFile,
  OUTPUT_DIR: outputDir,
  PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
  LOG_LEVEL: "info",
  DATABASE_POOL_SIZE: "20",
};
const api = spawnApp("api", {
  ...env,
  PORT: String(PORT),
  HOST: "127.0.0.1",
  RATE_LIMIT_PER_MINUTE: "10000000",
  RATE_LIMIT_RUNS_PER_MINUTE: "10000000",
});
const worker = spawnApp("worker", {
  ...env,
  LOG_LEVEL: process.env.BENCH_WORKER_LOG ?? "warn",
  WORKER_CONCURRENCY: "8",
  WEBHOOK_CONCURRENCY: "32",
});
const post = async (path, key, body) => {
  const res = await fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
};

try {
  await seedTestModels(database.db);
  const { account, liveKey } = await createAccountWithKeys(database.db, RUNS * 10);
  await api.waitForLine((l) => l.message === "api listening");
  await worker.waitForLine((l) => l.message === "worker ready", 30_000).catch(() => {});
  const endpoint = (await post("/webhooks", liveKey, { url: receiver.url("/endpoint") })).data;

  // Phase 1: run completion -> receipt.
  const runIds = [];
  for (let i = 0; i < RUNS; i += 16) {
    const batch = Array.from({ length: Math.min(16, RUNS - i) }, (_, j) =>
      post("/models/test/instant/run", liveKey, {
        input: { prompt: `bench ${i + j}` },
        webhook_url: receiver.url("/per-run"),
      }),
    );
    for (const r of await Promise.all(batch)) runIds.push(r.data.run_id);
  }
  await receiver.waitForRequests(RUNS * 2, 600_000);
  const runs = await database.db.run.findMany({
    where: { accountId: account.id },
    select: { id: true, completedAt: true },
  });
  const completedAt = new Map(runs.map((r) => [r.id, r.completedAt.getTime()]));
  const lag = receiver.requests
    .map((q) => q.at - completedAt.get(JSON.parse(q.body).data.run_id))
    .sort((a, b) => a - b);

  // Phase 2: a burst of deliveries.
  const before = receiver.requests.length;
  const started = performance.now();
  for (let i = 0; i < BURST; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, BURST - i) }, () => post(`/webhooks/${endpoint.id}/test`, liveKey)),
    );
  }
  await receiver.waitForRequests(before + BURST, 600_000);
  const seconds = (performance.now() - started) / 1000;
  await waitFor(async () => (await database.db.delivery.count({ where: { status: "pending" } })) === 0, {
    timeoutMs: 60_000,
  });
  const failed = await database.db.delivery.count({ where: { status: "failed" } });

  if (process.env.BENCH_WORKER_LOG)
    for (const l of worker.lines.filter((x) => x.message === "webhook attempt").slice(-8))
      console.log(JSON.stringify(l));
  console.log(`phase 1: ${RUNS} runs x 2 deliveries (webhook_url + endpoint), failed deliveries: ${failed}`);
  console.log(
    `  run completion -> receipt: p50 ${pct(lag, 50)} ms  p99 ${pct(lag, 99)} ms  max ${lag.at(-1)} ms`,
  );
  console.log(`phase 2: ${BURST} test deliveries to one endpoint (worker WEBHOOK_CONCURRENCY 32)`);
  console.log(
    `  ${(BURST / seconds).toFixed(0)} deliveries/s (first request to last receipt ${seconds.toFixed(1)} s)`,
  );
} finally {
  api.child.kill("SIGTERM");
  worker.child.kill("SIGTERM");
  await Promise.all([api.exited, worker.exited]);
  await receiver.close();
  await deleteRedisPrefix(prefix);
  await database.drop();
  await rm(outputDir, { recursive: true, force: true });
}
