import { once } from "node:events";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import request from "supertest";
import { createAccountWithKeys, DEAD_REDIS_URL, seedTestModels, waitFor } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

describe("HTTP behaviour common to every endpoint", () => {
  let api: ApiHarness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    api = await startApi({
      BODY_LIMIT_BYTES: "2048",
      OUTPUT_DIR: await mkdtemp(join(tmpdir(), "svc-http-")),
    });
    await seedTestModels(api.database.db);
    auth = { Authorization: `Bearer ${(await createAccountWithKeys(api.database.db)).liveKey}` };
  });
  afterAll(() => api.close());

  it("when the body is over the limit, then it is a 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await request(api.app)
      .post("/api/v1/models/acme/pixel-hq/run")
      .set(auth)
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ input: { prompt: "x".repeat(4096) } }))
      .expect(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("when the body is not JSON by its content type, then it is a 415", async () => {
    const res = await request(api.app)
      .post("/api/v1/models/acme/pixel-hq/run")
      .set(auth)
      .set("Content-Type", "text/plain")
      .send("prompt=cat")
      .expect(415);
    expect(res.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("when a form body is sent, then it is a 415", async () => {
    await request(api.app)
      .post("/api/v1/models/acme/pixel-hq/run")
      .set(auth)
      .type("form")
      .send({ a: 1 })
      .expect(415);
  });

  it("when the body comes brotli- or zstd-encoded, then it is a 415 naming the coding; gzip is read", async () => {
    const body = JSON.stringify({ input: { prompt: "squeezed" } });
    for (const [coding, bytes] of [
      ["br", brotliCompressSync(body)],
      ["zstd", Buffer.from(body)],
      ["gzip, br", gzipSync(body)],
    ] as const) {
      const res = await request(api.app)
        .post("/api/v1/models/acme/echo/run")
        .set(auth)
        .set({ "Content-Type": "application/json", "Content-Encoding": coding })
        .send(bytes)
        .expect(415);
      expect(res.body.error).toMatchObject({
        code: "UNSUPPORTED_MEDIA_TYPE",
        message: expect.stringContaining("Content-Encoding"),
      });
    }
    await request(api.app)
      .post("/api/v1/models/acme/echo/run")
      .set(auth)
      .set({ "Content-Type": "application/json", "Content-Encoding": "gzip" })
      // As bytes: superagent would serialize a Buffer as JSON for this content type.
      .serialize((bytes: unknown) => bytes as string)
      .send(gzipSync(body))
      .expect(201);
  });

  it("when an output file is asked for with a Range outside it, however large, then it is a 416 with Content-Range", async () => {
    const token = "out_4ReEbWIXuDXbjwlguHgMmo";
    await mkdir(join(api.config.OUTPUT_DIR, token), { recursive: true });
    await writeFile(join(api.config.OUTPUT_DIR, token, "0.png"), Buffer.alloc(1000, 1));
    for (const range of ["bytes=99999999999999999999-", "bytes=5000-6000", "bytes=-0"]) {
      const res = await request(api.app).get(`/files/${token}/0.png`).set("Range", range).expect(416);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.headers["content-range"]).toBe("bytes */1000");
      expect(res.body.error.code).toBe("RANGE_NOT_SATISFIABLE");
    }
    await request(api.app).get(`/files/${token}/0.png`).set("Range", "bytes=0-99").expect(206);
    // The token is a credential: the request line is logged without it.
    expect(api.logLines.some((l) => l.includes("/files/out_[redacted]/0.png"))).toBe(true);
    expect(api.logLines.join("\n")).not.toContain(token);
  });

  it("when the JSON is malformed, then it is a 400 INVALID_JSON", async () => {
    const res = await request(api.app)
      .post("/api/v1/models/acme/pixel-hq/run")
      .set(auth)
      .set("Content-Type", "application/json")
      .send('{"input": {')
      .expect(400);
    expect(res.body.error.code).toBe("INVALID_JSON");
  });

  it("when bytes that are not HTTP follow a request to a page, then the client is refused and nothing is logged as the service's error", async () => {
    // A body sent without Content-Length or chunked framing is parsed as the next request: Node's
    // parser fails while the console page is still being sent, and the page's send reports it.
    const server = api.app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const before = api.logLines.length;
      const key = auth.Authorization.slice("Bearer ".length);
      const socket = connect(port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
      socket.write(`GET /console/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\nnot http`);
      await once(socket, "close");
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      // The request's own line comes when its response closes; the page's error is reported on
      // the turn after (on-finished defers it), so two more turns let it reach the log.
      const logged = () =>
        api.logLines.slice(before).map((l) => JSON.parse(l) as { level: string; path?: string });
      await waitFor(async () => logged().some((l) => l.path === "/console/keys"), {
        what: "the request's line",
      });
      for (let turn = 0; turn < 2; turn++) await new Promise((r) => setImmediate(r));
      expect(logged().filter((l) => l.level === "error")).toEqual([]);
      expect(JSON.stringify(logged())).not.toContain(key.slice("svc_live_".length));
    } finally {
      server.close();
    }
  });

  it("when the path is unknown, then it is a JSON 404 NOT_FOUND", async () => {
    const inside = await request(api.app).get("/api/v1/nothing-here").set(auth).expect(404);
    expect(inside.body.error).toMatchObject({ code: "NOT_FOUND" });
    const outside = await request(api.app).get("/favicon.ico").expect(404);
    expect(outside.body.error).toMatchObject({ code: "NOT_FOUND", request_id: expect.any(String) });
    expect(outside.headers["content-type"]).toMatch(/application\/json/);
  });

  it("when the client sends a well-formed X-Request-Id, then it is echoed in the header and the error body", async () => {
    const res = await request(api.app)
      .get("/api/v1/nowhere")
      .set(auth)
      .set("X-Request-Id", "client-abc.123")
      .expect(404);
    expect(res.headers["x-request-id"]).toBe("client-abc.123");
    expect(res.body.error.request_id).toBe("client-abc.123");
  });

  it("when the client's X-Request-Id is malformed, then a fresh one is generated", async () => {
    const res = await request(api.app).get("/healthz").set("X-Request-Id", "bad id with spaces").expect(200);
    expect(res.headers["x-request-id"]).toMatch(/^req_[0-9A-Za-z]{22}$/);
  });

  it("when no X-Request-Id is sent, then every response still carries a unique one", async () => {
    const a = await request(api.app).get("/healthz");
    const b = await request(api.app).get("/api/v1/models").set(auth);
    expect(a.headers["x-request-id"]).toMatch(/^req_/);
    expect(b.headers["x-request-id"]).toMatch(/^req_/);
    expect(a.headers["x-request-id"]).not.toBe(b.headers["x-request-id"]);
  });

  it("when a request is logged, then the line carries its request id", async () => {
    await request(api.app).get("/api/v1/models").set(auth).set("X-Request-Id", "log-check-1").expect(200);
    const line = api.logLines.map((l) => JSON.parse(l)).find((l) => l.request_id === "log-check-1");
    expect(line).toMatchObject({ message: "request", method: "GET", status: 200, service: "api" });
  });

  it("when Postgres and Redis answer, then healthz and readyz are 200", async () => {
    await request(api.app)
      .get("/healthz")
      .expect(200, { data: { status: "ok" } });
    const ready = await request(api.app).get("/readyz").expect(200);
    expect(ready.body.data).toEqual({ status: "ready", checks: { postgres: "ok", redis: "ok" } });
  });
});

describe("readiness and errors with a dependency down", () => {
  it("when Redis does not answer, then readyz is a 503 naming redis while healthz stays 200", async () => {
    const api = await startApi({ REDIS_URL: DEAD_REDIS_URL, READY_TIMEOUT_MS: "300" });
    try {
      await request(api.app).get("/healthz").expect(200);
      const res = await request(api.app).get("/readyz").expect(503);
      expect(res.body.error).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        details: [{ path: "redis", message: expect.any(String) }],
      });
      // The account still answers; the test-run allowance comes from this process's own count.
      const { testKey } = await createAccountWithKeys(api.database.db);
      const account = await request(api.app)
        .get("/api/v1/account")
        .set("Authorization", `Bearer ${testKey}`)
        .expect(200);
      expect(account.body.data).toMatchObject({
        mode: "test",
        balance: 0,
        test_runs: { limit: 200, remaining: 200 },
      });
    } finally {
      await api.close();
    }
  });

  it("when Postgres does not answer, then readyz and an API call are 503 with no internals in the body", async () => {
    const api = await startApi({
      DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nowhere",
      READY_TIMEOUT_MS: "1000",
    });
    try {
      const ready = await request(api.app).get("/readyz").expect(503);
      expect(ready.body.error.details).toEqual([{ path: "postgres", message: expect.any(String) }]);
      const res = await request(api.app)
        .get("/api/v1/models")
        .set({ Authorization: `Bearer svc_live_${"A".repeat(43)}` })
        .expect(503);
      expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(res.headers["retry-after"]).toBe("5");
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.js/);
    } finally {
      await api.close();
    }
  });
});
