import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cogRunnerSchema, type RunnerSettings } from "@svc/core";
import { createRunners, serverUp } from "./registry.js";
import { RunnerError } from "./runner.js";

// The runner registry: each kind of model server answers for its own models and its own servers.
describe("runner registry", () => {
  let server: Server;
  let url = "";
  let health = "READY";
  beforeAll(async () => {
    // A Cog server's /health-check as Cog answers it (a GPU server cannot run here).
    server = createServer((req, res) => {
      if (req.url !== "/health-check") return res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: health }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const cog = (): RunnerSettings => cogRunnerSchema.parse({ kind: "cog", servers: [url], output: "image" });

  it("when a Cog server says READY or BUSY, then it takes runs; STARTING, SETUP_FAILED, DEFUNCT, UNHEALTHY or no answer, then it does not, and says which", async () => {
    for (const [status, up] of [
      ["READY", true],
      ["BUSY", true],
      ["STARTING", false],
      ["SETUP_FAILED", false],
      ["DEFUNCT", false],
      ["UNHEALTHY", false],
    ] as const) {
      health = status;
      expect(await serverUp(cog(), url, 1_000)).toEqual({ up, state: status });
    }
    expect(await serverUp(cog(), "http://127.0.0.1:1", 1_000)).toEqual({ up: false, state: "no answer" });
  });

  it("when a kind has no servers (the built-in generators), then no server of it is up", async () => {
    expect(await serverUp({ kind: "builtin", generator: "image", delay_ms: 0 }, url, 1_000)).toMatchObject({
      up: false,
    });
  });

  it("when a worker has no Cog callback configured, then a Cog model's run fails with the reason, and the generators still run", async () => {
    const runners = createRunners({ generatorThreads: 1 });
    try {
      expect(() => runners.for(cog())).toThrow(RunnerError);
      expect(runners.for({ kind: "builtin", generator: "echo", delay_ms: 0 })).toBeDefined();
    } finally {
      await runners.close();
    }
  });
});
