import request from "supertest";
import {
  createAccountWithKeys,
  freePort,
  seedTestModels,
  startHttpsReceiver,
  testCertificate,
  waitFor,
} from "@svc/testkit";
import { setupE2E, startWorker, stopWorker } from "./test/e2e.js";
import { startApi, type ApiHarness } from "./test/harness.js";

/** The value of one series in a Prometheus text exposition, or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((w) => line.includes(w))) return Number(line.split(" ").at(-1));
  }
  return 0;
}

describe("API metrics", () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi({ METRICS_TOKEN: "scrape-token-0123456789" });
    await seedTestModels(api.database.db);
  });
  afterAll(() => api.close());

  const scrape = async () =>
    (
      await request(api.app)
        .get("/metrics")
        .set("Authorization", "Bearer scrape-token-0123456789")
        .expect(200)
    ).text;

  it("when requests and runs happen, then the HTTP histogram, runs created and tokens reserved move", async () => {
    const { liveKey, testKey } = await createAccountWithKeys(api.database.db);
    const before = await scrape();
    await request(api.app).get("/api/v1/models").set("Authorization", `Bearer ${liveKey}`).expect(200);
    await request(api.app).get("/api/v1/runs/run_nope").set("Authorization", `Bearer ${liveKey}`).expect(404);
    for (const key of [liveKey, testKey]) {
      await request(api.app)
        .post("/api/v1/models/test/instant/run")
        .set("Authorization", `Bearer ${key}`)
        .send({ input: { prompt: "p" } })
        .expect(201);
    }
    const after = await scrape();
    const http = (route: string, status: string) => ({ method: "GET", route, status });
    expect(sample(after, "svc_http_request_duration_seconds_count", http("/api/v1/models", "200"))).toBe(
      sample(before, "svc_http_request_duration_seconds_count", http("/api/v1/models", "200")) + 1,
    );
    expect(
      sample(after, "svc_http_request_duration_seconds_count", http("/api/v1/runs/:runId", "404")),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(after, "svc_runs_created_total", { model: "test/instant", mode: "live" })).toBe(1);
    expect(sample(after, "svc_runs_created_total", { model: "test/instant", mode: "test" })).toBe(1);
    expect(sample(after, "svc_tokens_reserved_total", { model: "test/instant" })).toBe(5);
    expect(after).toContain("process_cpu_user_seconds_total");
  });

  it("when a metrics token is configured, then a scrape without it is refused", async () => {
    await request(api.app).get("/metrics").expect(401);
    await request(api.app).get("/metrics").set("Authorization", "Bearer wrong").expect(401);
  });
});

describe("worker metrics", () => {
  it("when runs finish and webhooks are delivered, then the worker's series move", async () => {
    const port = await freePort();
    const ctx = await setupE2E({
      METRICS_PORT: String(port),
      METRICS_HOST: "127.0.0.1",
      WEBHOOK_CA_FILE: (await testCertificate()).caFile,
    });
    const worker = await startWorker(ctx.workerEnvFor());
    const receiver = await startHttpsReceiver();
    try {
      const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
      const res = await request(ctx.api.app)
        .post("/api/v1/models/test/instant/run")
        .set("Authorization", `Bearer ${liveKey}`)
        .send({ input: { prompt: "count me", num_images: 2 }, webhook_url: receiver.url() })
        .expect(201);
      await receiver.waitForRequests(1);
      const scrape = () => fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
      const text = await waitFor(async () => {
        const t = await scrape();
        return sample(t, "svc_webhook_attempts_total", { outcome: "succeeded" }) === 1 ? t : null;
      });
      expect(sample(text, "svc_runs_finished_total", { model: "test/instant", outcome: "completed" })).toBe(
        1,
      );
      expect(sample(text, "svc_tokens_charged_total", { model: "test/instant" })).toBe(10);
      expect(sample(text, "svc_run_queue_wait_seconds_count")).toBe(1);
      expect(sample(text, "svc_webhook_attempt_duration_seconds_count")).toBe(1);
      expect(text).toMatch(/svc_queue_jobs\{queue="runs",state="waiting"\} 0/);
      expect(text).toMatch(/svc_queue_jobs\{queue="deliveries",state="active"\} \d+/);
      expect(res.body.data.run_id).toMatch(/^run_/);
    } finally {
      await receiver.close();
      await stopWorker(worker);
      await ctx.api.close();
    }
  });
});
