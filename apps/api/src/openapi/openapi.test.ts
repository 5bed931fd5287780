import express, { type Express } from "express";
import request from "supertest";
import { CONSOLE_SCOPED } from "../console/routes.js";
import { normalisePath, recordContractViolations } from "../test/contract.js";
import { startApi, type ApiHarness } from "../test/harness.js";

/** "METHOD /path" of every route an Express 5 app registers, through mounted routers. */
function registeredRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: unknown[], prefix: string) => {
    for (const layer of stack as {
      route?: { path: string; methods: Record<string, boolean> };
      name?: string;
      rawPath?: string;
      handle: { stack?: unknown[] };
    }[]) {
      if (layer.route)
        for (const m of Object.keys(layer.route.methods))
          out.push(`${m.toUpperCase()} ${prefix}${layer.route.path}`);
      else if (layer.name === "router" && layer.handle.stack)
        walk(layer.handle.stack, prefix + (layer.rawPath && layer.rawPath !== "/" ? layer.rawPath : ""));
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack, "");
  return out;
}

describe("OpenAPI document", () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ ADMIN_PASSWORD: "an admin password for the test" });
  });
  afterAll(() => api.close());

  it("when the app's routes are listed, then each is an operation of the document, and each operation a route", async () => {
    const doc = (await request(api.app).get("/api/v1/openapi.json").expect(200)).body;
    expect(doc.openapi).toBe("3.1.0");
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${normalisePath(path)}`),
    );
    const routes = registeredRoutes(api.app)
      // The queue dashboard and the console's HTML pages are not API operations.
      .filter((r) => !r.includes(" /admin/queues") && !r.startsWith("GET /console/{"))
      .map((r) => {
        const [method, path] = r.split(" ");
        const own = `${method} ${normalisePath(path!)}`;
        // The console reaches the API's operations at /console/api/:mode/…
        const asApi = `${method} ${normalisePath(path!.replace(CONSOLE_SCOPED, "/api/v1"))}`;
        return documented.includes(own) ? own : asApi;
      });
    expect(routes.length).toBeGreaterThanOrEqual(19);
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((d) => !routes.includes(d))).toEqual([]);
  });

  it("when an operation is documented, then it has its errors, security and an example where it takes a body", async () => {
    const doc = (await request(api.app).get("/api/v1/openapi.json").expect(200)).body;
    const run = doc.paths["/api/v1/models/{modelId}/run"].post;
    expect(Object.keys(run.responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "402",
      "403",
      "404",
      "409",
      "413",
      "415",
      "429",
      "500",
      "503",
    ]);
    expect(run.security).toEqual([{ bearer: [] }]);
    expect(run.requestBody.content["application/json"].example.input.prompt).toEqual(expect.any(String));
    expect(run.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["modelId", "idempotency-key"]),
    );
    expect(run.responses["429"].headers).toHaveProperty("Retry-After");
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain(
      "INSUFFICIENT_TOKENS",
    );
    expect(doc.paths["/healthz"].get.security).toEqual([]);
  });

  it("when the docs page is fetched, then it renders the document in HTML with its assets", async () => {
    const page = await request(api.app).get("/docs/").expect(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.text).toContain("<title>Model Run Service API</title>");
    expect(page.text).toMatch(/swagger-ui-bundle\.js/);
    const init = await request(api.app).get("/docs/swagger-ui-init.js").expect(200);
    expect(init.text).toContain("Model Run Service API");
    await request(api.app).get("/docs/swagger-ui-bundle.js").expect(200);
  });

  it("when a response does not match the document, then the contract check records it", async () => {
    const app = express();
    const violations = recordContractViolations(app);
    const v1 = express.Router();
    v1.get("/runs/:runId", (_req, res) => {
      res.json({ data: { run_id: "run_1", status: "DONE" } });
    });
    v1.use((req, res, next) => {
      res.locals.mount = req.baseUrl;
      next();
    });
    app.use("/api/v1", v1);
    await request(app).get("/api/v1/runs/run_1").expect(200);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(/GET \/api\/v1\/runs\/run_1 -> 200/);
  });
});
