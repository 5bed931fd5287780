import { runCommand } from "@svc/cli";
import type { Db } from "@svc/db";
import { ModelRunClient, type AnyRun } from "@svc/sdk";
import {
  startFakeCog,
  startService as startTestService,
  waitFor,
  type FakeCog,
  type TestService,
} from "@svc/testkit";

export type { RunningApi } from "@svc/testkit";

export interface E2EService extends Omit<TestService, "account"> {
  /** An account with `tokens`, and SDK clients on its live and test keys, against `base`. */
  account(
    tokens: number,
    base?: string,
  ): Promise<{
    accountId: string;
    liveKey: string;
    testKey: string;
    client: ModelRunClient;
    testClient: ModelRunClient;
  }>;
}

/** testkit's service (the built API and worker as processes), with SDK clients for its accounts. */
export async function startService(shared: Record<string, string> = {}): Promise<E2EService> {
  const service = await startTestService(shared);
  return {
    ...service,
    async account(tokens, baseUrl = service.base) {
      const { accountId, liveKey, testKey } = await service.account(tokens);
      return {
        accountId,
        liveKey,
        testKey,
        client: new ModelRunClient({ apiKey: liveKey, baseUrl }),
        testClient: new ModelRunClient({ apiKey: testKey, baseUrl }),
      };
    },
  };
}

/** The admin CLI (`svc`) against the service's database, its --json lines parsed. */
export async function adminCli(db: Db, argv: string[]): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  await runCommand(db, [...argv, "--json"], (line) => lines.push(line), { API_KEYS_PER_MODE_MAX: 20 });
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A new live key of the account, limited as `limits` says (--models a,b; --budget 5/day): its id and key. */
export async function limitedKey(
  db: Db,
  accountId: string,
  name: string,
  limits: string[],
): Promise<{ id: string; key: string }> {
  const [made] = await adminCli(db, [
    "keys",
    "create",
    "--account",
    accountId,
    "--mode",
    "live",
    "--name",
    name,
    ...limits,
  ]);
  return { id: String(made!.id), key: String(made!.key) };
}

/** The run, read through `client`, once its status is one of `statuses`. */
export const runReaching = (client: ModelRunClient, runId: string, statuses: string[]) =>
  waitFor(
    async () => {
      const run: AnyRun = await client.runs.get(runId);
      return statuses.includes(run.status) ? run : null;
    },
    { what: `run ${runId} to be ${statuses.join("/")}` },
  );

/** Fake Cog servers started by one test file, closed together at its end. */
export function fakeCogs() {
  const started: FakeCog[] = [];
  return {
    async start(...args: Parameters<typeof startFakeCog>): Promise<FakeCog> {
      const cog = await startFakeCog(...args);
      started.push(cog);
      return cog;
    },
    closeAll: () => Promise.all(started.map((c) => c.close())),
  };
}

/**
 * A worker's environment with its Cog callback server on `port`. Every worker of a file uses the
 * same lock: BullMQ lets one worker's stalled-check interval gate all others' (a shared key), so a
 * worker with a longer one would delay takeovers.
 */
export const cogWorkerEnv = (port: number) => ({
  COG_CALLBACK_URL: `http://127.0.0.1:${port}`,
  COG_CALLBACK_PORT: String(port),
  COG_CALLBACK_HOST: "127.0.0.1",
  RUN_LOCK_MS: "1000",
});
