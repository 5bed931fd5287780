import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedTestModels, serviceEnv, spawnApp, type SpawnedApp } from "@svc/testkit";

export { stopApps as stopWorker } from "@svc/testkit";
import { startApi } from "./harness.js";

// The API in-process (supertest) and the worker as a real process, on one database and queue prefix.
export const PUBLIC_BASE_URL = "http://files.test";

export type E2E = Awaited<ReturnType<typeof setupE2E>>;

export async function setupE2E(workerEnv: Record<string, string> = {}, apiEnv: Record<string, string> = {}) {
  const outputDir = await mkdtemp(join(tmpdir(), "svc-e2e-"));
  const api = await startApi({ OUTPUT_DIR: outputDir, PUBLIC_BASE_URL, ...apiEnv });
  await seedTestModels(api.database.db);
  const workerEnvFor = (extra: Record<string, string> = {}) => ({
    ...serviceEnv(api.database.url, api.config.QUEUE_PREFIX),
    OUTPUT_DIR: outputDir,
    PUBLIC_BASE_URL,
    SWEEP_INTERVAL_MS: "200",
    SWEEP_QUEUED_AFTER_MS: "0",
    LOG_LEVEL: "info",
    ...workerEnv,
    ...extra,
  });
  return { api, outputDir, workerEnvFor };
}

export async function startWorker(env: Record<string, string>): Promise<SpawnedApp> {
  const worker = spawnApp("worker", env);
  await worker.waitForLine((l) => l.message === "worker ready");
  return worker;
}
