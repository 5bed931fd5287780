import request from "supertest";
import { createAccountWithKeys, metricSample as sample, seedTestModels } from "@svc/testkit";
import { startApi, type ApiHarness } from "./test/harness.js";

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
