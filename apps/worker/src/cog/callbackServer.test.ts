import type { Server } from "node:http";
import { createLogger } from "@svc/logger";
import { createRedis } from "@svc/queue";
import { deleteRedisPrefix, testQueuePrefix, TEST_REDIS_URL } from "@svc/testkit";
import { cogWebhookUrl, startCogCallbackServer } from "./callbackServer.js";
import { redisCogResults } from "./results.js";

describe("Cog callback server", () => {
  const prefix = testQueuePrefix();
  const key = Buffer.alloc(32, 9);
  const redis = createRedis(TEST_REDIS_URL, "worker");
  const results = redisCogResults(redis, prefix);
  let server: Server;
  let base: string;
  const progress: { runId: string; report: unknown }[] = [];
  const released: string[] = [];

  beforeAll(async () => {
    server = await startCogCallbackServer({
      host: "127.0.0.1",
      port: 0,
      secretsKey: key,
      results,
      progress: {
        report: async (runId, report) => void progress.push({ runId, report }),
        ended: () => {},
      },
      release: async (runId) => void released.push(runId),
      logger: createLogger({ service: "t", level: "silent" }),
    });
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.close();
    await deleteRedisPrefix(prefix);
    redis.disconnect();
  });

  const post = (url: string, body: unknown) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("when a completed prediction arrives with its token, then it is stored for the waiting run and its slot given back", async () => {
    const res = await post(cogWebhookUrl(base, key, "run_a"), {
      id: "run_a",
      status: "succeeded",
      output: ["data:,x"],
    });
    expect(res.status).toBe(200);
    expect(await results.get("run_a")).toMatchObject({ status: "succeeded", output: ["data:,x"] });
    expect(released).toEqual(["run_a"]);
  });

  it("when the token is missing, wrong, or for another prediction, then it is a 401 and nothing is stored", async () => {
    const other = new URL(cogWebhookUrl(base, key, "run_other"));
    for (const url of [
      `${base}/cog/predictions/run_b`,
      `${base}/cog/predictions/run_b?token=abc`,
      `${base}/cog/predictions/run_b${other.search}`,
    ]) {
      expect((await post(url, { status: "succeeded" })).status).toBe(401);
    }
    expect(await results.get("run_b")).toBeNull();
  });

  it("when the body is not a prediction, then it is a 400; a non-terminal status is acknowledged but not stored", async () => {
    expect((await post(cogWebhookUrl(base, key, "run_c"), { status: "exploded" })).status).toBe(400);
    expect((await post(cogWebhookUrl(base, key, "run_c"), { status: "processing" })).status).toBe(200);
    expect(await results.get("run_c")).toBeNull();
  });

  it("when a processing prediction sends its logs and partial output, then they become the run's progress", async () => {
    const res = await post(cogWebhookUrl(base, key, "run_logs"), {
      id: "run_logs",
      status: "processing",
      logs: "step 1\nstep 2\n",
      output: ["https://x/partial.png"],
    });
    expect(res.status).toBe(200);
    expect(progress).toEqual([
      { runId: "run_logs", report: { logs: "step 1\nstep 2\n", output: ["https://x/partial.png"] } },
    ]);
  });
});
