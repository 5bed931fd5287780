// The service under benchmark: testkit's service (a fresh database and queue prefix, the built API
// and worker as real processes on 127.0.0.1), with rate limits on but high enough not to
// interfere, and a larger Postgres pool.
import { startService as startTestService } from "../../packages/testkit/dist/index.js";

export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function startService({ env = {}, workerEnv = {}, startWorkerNow = true } = {}) {
  const inner = await startTestService({
    DATABASE_POOL_SIZE: "20",
    RATE_LIMIT_ENABLED: "true",
    RATE_LIMIT_PER_MINUTE: "10000000",
    RATE_LIMIT_RUNS_PER_MINUTE: "10000000",
    ...env,
  });
  const service = {
    database: inner.database,
    api: (await inner.startApi()).app,
    worker: undefined,
    base: `${inner.base}/api/v1`,
    async startWorker() {
      service.worker = await inner.startWorker(workerEnv);
    },
    stop: () => inner.stop(),
  };
  if (startWorkerNow) await service.startWorker();
  return service;
}
