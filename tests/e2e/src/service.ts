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
