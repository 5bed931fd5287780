import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelRunClient } from "@svc/sdk";
import {
  createAccountWithKeys,
  createTestDatabase,
  deleteRedisPrefix,
  freePort,
  seedTestModels,
  serviceEnv,
  spawnApp,
  stopApps,
  testCertificate,
  testQueuePrefix,
  type SpawnedApp,
  type TestDatabase,
} from "@svc/testkit";

export interface RunningApi {
  base: string;
  app: SpawnedApp;
}

export interface E2EService {
  database: TestDatabase;
  prefix: string;
  /** What every process of this service gets (database, queue prefix, outputs, CA of receivers). */
  env: Record<string, string>;
  /** The API origin the outputs' URLs name (PUBLIC_BASE_URL): the first API started listens there. */
  base: string;
  /** Starts an API process; the first on `base`, later ones on ports of their own. */
  startApi(extra?: Record<string, string>): Promise<RunningApi>;
  startWorker(extra?: Record<string, string>): Promise<SpawnedApp>;
  /** An account with `tokens`, and SDK clients on its live and test keys, against `base`. */
  account(
    tokens: number,
    base?: string,
  ): Promise<{ accountId: string; liveKey: string; client: ModelRunClient; testClient: ModelRunClient }>;
  /** SIGTERM to every process started, then the database and queue keys go. */
  stop(): Promise<void>;
}

/**
 * The service as operators run it, for cross-process tests: the built API and worker as
 * processes on one fresh database and queue prefix, driven over HTTP (the SDK, mostly).
 */
export async function startService(shared: Record<string, string> = {}): Promise<E2EService> {
  const database = await createTestDatabase();
  await seedTestModels(database.db);
  const prefix = testQueuePrefix();
  const firstPort = await freePort();
  const base = `http://127.0.0.1:${firstPort}`;
  const { caFile } = await testCertificate();
  const env = {
    ...serviceEnv(database.url, prefix),
    OUTPUT_DIR: await mkdtemp(join(tmpdir(), "svc-e2e-")),
    PUBLIC_BASE_URL: base,
    RATE_LIMIT_ENABLED: "false",
    WEBHOOK_CA_FILE: caFile,
    LOG_LEVEL: "info",
    ...shared,
  };
  const apps: SpawnedApp[] = [];
  let apis = 0;
  return {
    database,
    prefix,
    env,
    base,
    async startApi(extra = {}) {
      const port = apis++ === 0 ? firstPort : await freePort();
      const app = spawnApp("api", { ...env, ...extra, PORT: String(port), HOST: "127.0.0.1" });
      apps.push(app);
      await app.waitForLine((l) => l.message === "api listening");
      return { base: `http://127.0.0.1:${port}`, app };
    },
    async startWorker(extra = {}) {
      const worker = spawnApp("worker", { ...env, ...extra });
      apps.push(worker);
      await worker.waitForLine((l) => l.message === "worker ready");
      return worker;
    },
    async account(tokens, at = base) {
      const { account, liveKey, testKey } = await createAccountWithKeys(database.db, tokens);
      return {
        accountId: account.id,
        liveKey,
        client: new ModelRunClient({ apiKey: liveKey, baseUrl: at }),
        testClient: new ModelRunClient({ apiKey: testKey, baseUrl: at }),
      };
    },
    async stop() {
      await stopApps(...apps);
      await deleteRedisPrefix(prefix);
      await database.drop();
    },
  };
}
