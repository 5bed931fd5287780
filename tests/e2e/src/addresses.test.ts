import { spawnApp } from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Per-address limits of the built API process, as a crowd behind one NAT or proxy and as an
// attacker rotating X-Forwarded-For would meet them.
describe("per-address limits", () => {
  let service: E2EService;

  beforeAll(async () => {
    service = await startService({ RATE_LIMIT_ENABLED: "true", AUTH_FAILURES_PER_MINUTE: "30" });
  });
  afterAll(() => service?.stop());

  const models = (base: string, key: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/v1/models`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  const badKey = (i: number) => `svc_live_${String(i).padStart(43, "q")}`;

  it("when 30 bad keys come from one address, then its next bad key is 429 but a valid key it never used before is served", async () => {
    const { base } = await service.startApi();
    const { liveKey } = await service.account(10);
    for (let i = 0; i < 30; i++) expect((await models(base, badKey(i))).status).toBe(401);
    const refused = await models(base, badKey(30));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await models(base, liveKey)).status).toBe(200);
  });

  it("when a client behind one proxy rotates X-Forwarded-For, then with TRUST_PROXY=1 every failure counts against the address the proxy saw", async () => {
    const { base } = await service.startApi({ TRUST_PROXY: "1", AUTH_FAILURES_PER_MINUTE: "5" });
    // The proxy appends the address it saw; what the client sent comes before it.
    const attempt = (i: number) =>
      models(base, badKey(100 + i), { "x-forwarded-for": `10.${i}.0.1, 203.0.113.9` });
    for (let i = 0; i < 5; i++) expect((await attempt(i)).status).toBe(401);
    expect((await attempt(5)).status).toBe(429);
    // Another client of the same proxy is not affected.
    expect((await models(base, badKey(200), { "x-forwarded-for": "203.0.113.10" })).status).toBe(401);
  });

  it("when TRUST_PROXY is true, then the API refuses to start, naming the setting", async () => {
    const api = spawnApp("api", { ...service.env, PORT: "0", TRUST_PROXY: "true" });
    expect(await api.exited).toBe(78);
    expect(JSON.stringify(api.lines)).toMatch(/TRUST_PROXY: true would believe any client's X-Forwarded-For/);
  });
});
