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
      api = await startApi({ ADMIN_PASSWORD: password });
    });
    afterAll(() => api.close());

    it("when credentials are missing or wrong, then it is a 401 asking for Basic auth", async () => {
      const res = await request(api.app).get("/admin/queues").expect(401);
      expect(res.headers["www-authenticate"]).toMatch(/^Basic/);
      await request(api.app).get("/admin/queues").auth("admin", "wrong password here").expect(401);
      await request(api.app).get("/admin/queues").auth("root", password).expect(401);
    });

    it("when the operator signs in, then the dashboard page and its queue API answer with both queues", async () => {
      const page = await request(api.app).get("/admin/queues").auth("admin", password).expect(200);
      expect(page.headers["content-type"]).toMatch(/text\/html/);
      const queues = await request(api.app)
        .get("/admin/queues/api/queues")
        .auth("admin", password)
        .expect(200);
      expect(queues.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(["deliveries", "runs"]);
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
      ).toEqual(["deliveries", "runs"]);
    } finally {
      api.child.kill("SIGTERM");
      await api.exited;
      await deleteRedisPrefix(prefix);
      await database.drop();
    }
  });
});
