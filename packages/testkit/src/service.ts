import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import { createAccountWithKeys } from "./fixtures.js";
import { testCertificate } from "./httpsReceiver.js";
import { seedTestModels } from "./models.js";
import { serviceEnv, spawnApp, stopApps, type SpawnedApp } from "./process.js";
import { deleteRedisPrefix, testQueuePrefix } from "./redis.js";
import { startPgBouncer, testPooling } from "./pooler.js";
import { freePort, portFree, waitFor } from "./wait.js";

export interface RunningApi {
  base: string;
  app: SpawnedApp;
}

export interface TestService {
  database: TestDatabase;
  prefix: string;
  /** What every process of this service gets (database, queue prefix, outputs, CA of receivers). */
  env: Record<string, string>;
  /** The API origin the outputs' URLs name (PUBLIC_BASE_URL): the first API started listens there. */
  base: string;
  /** Starts an API process; the first on `base`, later ones on ports of their own. */
  startApi(extra?: Record<string, string>): Promise<RunningApi>;
  startWorker(extra?: Record<string, string>): Promise<SpawnedApp>;
  /** An account with `tokens` and its live and test keys. */
  account(tokens: number): Promise<{ accountId: string; liveKey: string; testKey: string }>;
  /** SIGTERM to every process started, then the database, the queue keys and the outputs go. */
  stop(): Promise<void>;
}

/**
 * The service as operators run it, for cross-process tests and benchmarks: the built API and
 * worker as processes on one fresh database and queue prefix, driven over HTTP.
 */
export async function startService(shared: Record<string, string> = {}): Promise<TestService> {
  const database = await createTestDatabase();
  await seedTestModels(database.db);
  const prefix = testQueuePrefix();
  const firstPort = await freePort();
  const base = `http://127.0.0.1:${firstPort}`;
  const { caFile } = await testCertificate();
  const outputs = await mkdtemp(join(tmpdir(), "svc-e2e-"));
  // The processes reach Postgres through the pooler; the test itself (fixtures, checks) directly.
  const pooler = testPooling() ? await startPgBouncer(database.url) : undefined;
  const env = {
    ...serviceEnv(pooler?.urlFor(database.url) ?? database.url, prefix),
    ...(pooler && { DATABASE_POOLING: "transaction", DATABASE_DIRECT_URL: database.url }),
    OUTPUT_DIR: outputs,
    PUBLIC_BASE_URL: base,
    RATE_LIMIT_ENABLED: "false",
    WEBHOOK_CA_FILE: caFile,
    FILE_FETCH_CA_FILE: caFile,
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
      const first = apis++ === 0;
      let port = first ? firstPort : await freePort();
      // A port that was free a moment ago can meanwhile be taken by a parallel test that drew the
      // same one (freePort keeps clear of outgoing connections' ports): then the API cannot
      // listen, and tries again (on the same port when base names it).
      for (let attempt = 1; ; attempt++) {
        const app = spawnApp("api", { ...env, ...extra, PORT: String(port), HOST: "127.0.0.1" });
        apps.push(app);
        const line = await app.waitForLine(
          (l) => l.message === "api listening" || (l.error as { code?: string })?.code === "EADDRINUSE",
        );
        if (line.message === "api listening") return { base: `http://127.0.0.1:${port}`, app };
        await app.exited;
        if (attempt === 5)
          throw new Error(`the API could not listen on a free port: ${JSON.stringify(line)}`);
        // The first API's port is named by base: once whoever took it lets it go (waited for up
        // to 5 s, then one more try reports the failure).
        if (first)
          await waitFor(async () => portFree(port), { what: `port ${port} free`, timeoutMs: 5_000 }).catch(
            () => {},
          );
        else port = await freePort();
      }
    },
    async startWorker(extra = {}) {
      const worker = spawnApp("worker", { ...env, ...extra });
      apps.push(worker);
      await worker.waitForLine((l) => l.message === "worker ready");
      return worker;
    },
    async account(tokens) {
      const { account, liveKey, testKey } = await createAccountWithKeys(database.db, tokens);
      return { accountId: account.id, liveKey, testKey };
    },
    async stop() {
      await stopApps(...apps);
      await pooler?.stop();
      await deleteRedisPrefix(prefix);
      await database.drop();
      await rm(outputs, { recursive: true, force: true });
    },
  };
}
