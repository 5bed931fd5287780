import { runCommand } from "@svc/cli";
import type { Db } from "@svc/db";
import { ModelRunClient } from "@svc/sdk";
import { startService as startTestService, type TestService } from "@svc/testkit";

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
