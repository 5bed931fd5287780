// The service under benchmark: a fresh database and queue prefix, the built API and worker as real
// processes on 127.0.0.1 (rate limits high enough not to interfere, but still in the path).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTestDatabase,
  deleteRedisPrefix,
  freePort,
  seedTestModels,
  serviceEnv,
  spawnApp,
  testQueuePrefix,
} from "../../packages/testkit/dist/index.js";

export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function startService({ env: extraEnv = {}, workerEnv = {}, startWorkerNow = true } = {}) {
  const database = await createTestDatabase();
  await seedTestModels(database.db);
  const prefix = testQueuePrefix();
  const outputDir = await mkdtemp(join(tmpdir(), "svc-bench-"));
  const port = await freePort();
  const env = {
    ...serviceEnv(database.url, prefix),
    OUTPUT_DIR: outputDir,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "info",
    DATABASE_POOL_SIZE: "20",
    ...extraEnv,
  };
  const api = spawnApp("api", {
    ...env,
    PORT: String(port),
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_MINUTE: "10000000",
    RATE_LIMIT_RUNS_PER_MINUTE: "10000000",
  });
  const service = {
    database,
    outputDir,
    api,
    worker: undefined,
    base: `http://127.0.0.1:${port}/api/v1`,
    async startWorker() {
      service.worker = spawnApp("worker", { ...env, ...workerEnv });
      await service.worker.waitForLine((l) => l.message === "worker ready", 30_000);
    },
    async stop() {
      for (const p of [service.api, service.worker]) p?.child.kill("SIGTERM");
      await Promise.all([service.api.exited, service.worker?.exited]);
      await deleteRedisPrefix(prefix);
      await database.drop();
      await rm(outputDir, { recursive: true, force: true });
    },
  };
  await api.waitForLine((l) => l.message === "api listening");
  if (startWorkerNow) await service.startWorker();
  return service;
}
