import { createServer, type Server } from "node:http";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunnerError } from "./runner.js";
import { localStore, runOutputs } from "@svc/storage";
import { copyOutputs, type OutputFetchPolicy } from "./outputs.js";

/** Real servers on 127.0.0.1: the model's own (trusted) and another internal host (not). */
describe("Cog outputs fetched from URLs", () => {
  let model: Server;
  let internal: Server;
  let modelUrl: string;
  let internalUrl: string;
  const internalHits: string[] = [];
  let dir: string;

  const listen = async (server: Server) => {
    server.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-outputs-"));
    model = createServer((req, res) => {
      const url = req.url ?? "";
      if (url === "/0.png")
        return res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(64, 1));
      if (url === "/evil.png")
        return res.writeHead(200, { "content-type": "text/html" }).end("<script></script>");
      if (url === "/to-internal") return res.writeHead(302, { location: `${internalUrl}/secret` }).end();
      const hop = /^\/loop\/(\d+)$/.exec(url);
      if (hop) return res.writeHead(307, { location: `/loop/${Number(hop[1]) + 1}` }).end();
      if (url === "/declared-huge")
        return res
          .writeHead(200, { "content-type": "image/png", "content-length": "5000" })
          .end(Buffer.alloc(5000));
      if (url === "/broken") {
        res.writeHead(200, { "content-type": "image/png", "content-length": "100000" });
        return res.write(Buffer.alloc(1000), () => res.destroy());
      }
      if (url === "/huge") {
        res.writeHead(200, { "content-type": "image/png" });
        const chunk = Buffer.alloc(64 * 1024);
        let sent = 0;
        const more = () => {
          while (sent < 200 && res.write(chunk)) sent++;
          if (sent < 200) res.once("drain", more);
          else res.end();
        };
        res.on("error", () => {});
        return more();
      }
      res.writeHead(404).end();
    });
    internal = createServer((req, res) => {
      internalHits.push(req.url ?? "");
      res.writeHead(200, { "content-type": "image/png" }).end("secret");
    });
    modelUrl = await listen(model);
    internalUrl = await listen(internal);
  });
  afterAll(async () => {
    model.closeAllConnections();
    await Promise.all([model, internal].map((s) => new Promise((r) => s.close(r))));
  });

  const policy = (extra: Partial<OutputFetchPolicy> = {}): OutputFetchPolicy => ({
    allowPrivate: false,
    trustedOrigins: new Set([modelUrl]),
    timeoutMs: 5_000,
    maxBytes: 1024 * 1024,
    ...extra,
  });
  const copy = (output: unknown, p = policy()) =>
    copyOutputs(
      output,
      runOutputs(localStore(dir), "http://files.test", Buffer.alloc(32))("run_test"),
      new AbortController().signal,
      p,
    );

  it("when an output is on the model's own server, then it is copied with the type the server declared", async () => {
    const [url] = await copy([`${modelUrl}/0.png`]);
    expect(url).toMatch(/^http:\/\/files\.test\/files\/out_\w+\/\w{22}-0\.png$/);
  });

  it("when a URL path says .png but the server says text/html, then the file is stored as .bin", async () => {
    const [url] = await copy([`${modelUrl}/evil.png`]);
    expect(url).toMatch(/-0\.bin$/);
  });

  it.each([
    ["an internal address literal", () => `${internalUrl}/secret`],
    [
      "a name that resolves to an internal address",
      () => `${internalUrl.replace("127.0.0.1", "localhost")}/secret`,
    ],
    ["a redirect from the model's server to an internal address", () => `${modelUrl}/to-internal`],
  ])(
    "when an output URL is %s, then the run fails with MODEL_ERROR and the address is never contacted",
    async (_what, url) => {
      const before = internalHits.length;
      await expect(copy([url()])).rejects.toMatchObject({
        code: "MODEL_ERROR",
        message: expect.stringMatching(/internal address/),
      });
      expect(internalHits.length).toBe(before);
    },
  );

  it("when the operator allows private addresses, then the other internal host is fetched", async () => {
    await copy([`${internalUrl}/allowed`], policy({ allowPrivate: true }));
    expect(internalHits).toContain("/allowed");
  });

  it("when redirects go on past 3, then the output is refused", async () => {
    await expect(copy([`${modelUrl}/loop/0`])).rejects.toMatchObject({
      message: expect.stringMatching(/more than 3 redirects/),
    });
  });

  const storedFiles = async () =>
    (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length;

  it("when a body grows past the limit, then the download stops there with MODEL_ERROR, and nothing is stored", async () => {
    const before = await storedFiles();
    const error = await copy([`${modelUrl}/huge`], policy({ maxBytes: 256 * 1024 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect((error as RunnerError).message).toMatch(/larger than 262144 bytes/);
    expect(await storedFiles()).toBe(before);
  });

  it("when the server declares a length past the limit, then the copy fails before reading the body", async () => {
    const before = await storedFiles();
    await expect(copy([`${modelUrl}/declared-huge`], policy({ maxBytes: 1000 }))).rejects.toMatchObject({
      code: "MODEL_ERROR",
      message: expect.stringMatching(/larger than 1000 bytes/),
    });
    expect(await storedFiles()).toBe(before);
  });

  it("when a download breaks off halfway, then the copy fails and nothing is stored", async () => {
    const before = await storedFiles();
    await expect(copy([`${modelUrl}/broken`])).rejects.toThrow();
    expect(await storedFiles()).toBe(before);
  });

  it("when a data: URL is larger than the limit, then it is refused", async () => {
    const data = `data:image/png;base64,${Buffer.alloc(2000).toString("base64")}`;
    await expect(copy([data], policy({ maxBytes: 1000 }))).rejects.toMatchObject({ code: "MODEL_ERROR" });
  });
});
