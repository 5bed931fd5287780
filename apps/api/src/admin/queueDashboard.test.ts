import request from "supertest";
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
});
