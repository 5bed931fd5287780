import { utimes } from "node:fs/promises";
import type { ModelRunClient } from "@svc/sdk";
import { waitFor, localOutputKeys, localPath } from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Retention of local outputs, with the built worker deleting what is past OUTPUT_RETENTION_DAYS
// (the same in a bucket: storage.test.ts).
describe("output retention", () => {
  let service: E2EService;
  let client: ModelRunClient;

  beforeAll(async () => {
    service = await startService({ OUTPUT_RETENTION_DAYS: "1", OUTPUT_EXPIRY_INTERVAL_MS: "200" });
    await service.startApi();
    await service.startWorker();
    ({ client } = await service.account(100));
  });
  afterAll(() => service?.stop());

  const completedOutput = async () => {
    const run = await client.run("test/instant", { input: { prompt: "kept for a day" } });
    return (run.output.images as string[])[0]!;
  };

  it("when an output is older than OUTPUT_RETENTION_DAYS, then the worker deletes its file and its URL answers 410 OUTPUT_EXPIRED, while newer outputs stay", async () => {
    const old = await completedOutput();
    const fresh = await completedOutput();
    expect((await fetch(old)).status).toBe(200);
    const token = old.split("/").at(-2)!;
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    for (const key of await localOutputKeys(service.env.OUTPUT_DIR!))
      if (key.startsWith(`${token}/`))
        await utimes(localPath(service.env.OUTPUT_DIR!, key), twoDaysAgo, twoDaysAgo);
    const gone = await waitFor(
      async () => {
        const res = await fetch(old);
        return res.status === 410 ? res : null;
      },
      { what: "the old output to be expired" },
    );
    expect(((await gone.json()) as { error: unknown }).error).toMatchObject({
      code: "OUTPUT_EXPIRED",
      request_id: expect.any(String),
    });
    expect((await fetch(fresh)).status).toBe(200);
    expect((await fetch(`${service.base}/files/${token}/not-there.png`)).status).toBe(410);
    expect((await fetch(`${service.base}/files/out_AAAAAAAAAAAAAAAAAAAAAA/0.png`)).status).toBe(404);
  });
});
