import request from "supertest";
import {
  createTestDatabase,
  deleteRedisPrefix,
  freePort,
  serviceEnv,
  spawnApp,
  testQueuePrefix,
} from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";
import { DASHBOARD_FAILURES_PER_WINDOW } from "./queueDashboard.js";

describe("queue dashboard", () => {
  it("when no admin password is configured, then there is no dashboard", async () => {
    const api = await startApi();
    try {
      await request(api.app).get("/admin/queues").expect(404);
    } finally {
      await api.close();
    }
  });

  describe("with an admin password", () => {
    let api: ApiHarness;
    const password = "correct horse battery staple";
    beforeAll(async () => {
      api = await startApi({ ADMIN_PASSWORD: password, TRUST_PROXY: "loopback" });
    });
    afterAll(() => api.close());

    it("when credentials are missing or wrong, then it is a 401 asking for Basic auth", async () => {
      const res = await request(api.app).get("/admin/queues").expect(401);
      expect(res.headers["www-authenticate"]).toMatch(/^Basic/);
      await request(api.app).get("/admin/queues").auth("admin", "wrong password here").expect(401);
      await request(api.app).get("/admin/queues").auth("root", password).expect(401);
    });

    it("when the operator signs in, then the dashboard page and its queue API answer with every queue", async () => {
      const page = await request(api.app).get("/admin/queues").auth("admin", password).expect(200);
      expect(page.headers["content-type"]).toMatch(/text\/html/);
      const queues = await request(api.app)
        .get("/admin/queues/api/queues")
        .auth("admin", password)
        .expect(200);
      expect(queues.body.queues.map((q: { name: string }) => q.name).sort()).toEqual([
        "batch-runs",
        "deliveries",
        "leased-batch-runs",
        "leased-runs",
        "runs",
      ]);
      expect(page.headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
      expect(page.headers["content-security-policy"]).toMatch(/script-src 'self'/);
      expect(page.headers["x-frame-options"]).toBe("DENY");
      expect(page.headers["x-content-type-options"]).toBe("nosniff");
    });

    it("when another site's page posts to the dashboard with the operator's credentials, then it is refused and no job is added", async () => {
      const jobs = async () => (await api.queues.runs().getJobCounts()).waiting ?? 0;
      const before = await jobs();
      // A form or fetch in no-cors mode can send text/plain; the browser attaches Basic credentials.
      const plain = await request(api.app)
        .post("/admin/queues/api/queues/runs/add")
        .auth("admin", password)
        .set("Content-Type", "text/plain")
        .send('{"name":"evil","data":{"runId":"run_x"}}');
      expect(plain.status).toBe(403);
      const foreign = await request(api.app)
        .post("/admin/queues/api/queues/runs/add")
        .auth("admin", password)
        .set("Origin", "https://evil.example")
        .send({ name: "evil", data: {} });
      expect(foreign.status).toBe(403);
      expect(await jobs()).toBe(before);
    });

    it("when an address keeps sending wrong passwords, then it must wait, even with the right one, while others still sign in", async () => {
      const from = (ip: string) => request(api.app).get("/admin/queues").set("X-Forwarded-For", ip);
      for (let i = 0; i < DASHBOARD_FAILURES_PER_WINDOW; i++)
        expect((await from("203.0.113.20").auth("admin", `guess ${i}`)).status).toBe(401);
      const blocked = await from("203.0.113.20").auth("admin", password);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
      expect((await from("198.51.100.20").auth("admin", password)).status).toBe(200);
    });
  });

  it("when the built API process runs with ADMIN_PASSWORD, then it serves the dashboard behind Basic auth", async () => {
    const database = await createTestDatabase();
    const prefix = testQueuePrefix();
    const port = await freePort();
    const password = "operators only, please";
    const api = spawnApp("api", {
      ...serviceEnv(database.url, prefix),
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_PASSWORD: password,
    });
    try {
      await api.waitForLine((l) => l.message === "api listening");
      const base = `http://127.0.0.1:${port}/admin/queues`;
      expect((await fetch(base)).status).toBe(401);
      const basic = `Basic ${Buffer.from(`admin:${password}`).toString("base64")}`;
      const page = await fetch(base, { headers: { authorization: basic } });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      const queues = await fetch(`${base}/api/queues`, { headers: { authorization: basic } });
      expect(
        ((await queues.json()) as { queues: { name: string }[] }).queues.map((q) => q.name).sort(),
      ).toEqual(["batch-runs", "deliveries", "leased-batch-runs", "leased-runs", "runs"]);
    } finally {
      api.child.kill("SIGTERM");
      await api.exited;
      await deleteRedisPrefix(prefix);
      await database.drop();
    }
  });
});
