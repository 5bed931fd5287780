import { Agent, request } from "node:http";
import { startService } from "./service.js";

/** The Keep-Alive header of an answer on a kept-alive connection. */
const keepAliveOf = (base: string) =>
  new Promise<string | undefined>((resolve, reject) => {
    const agent = new Agent({ keepAlive: true });
    request(`${base}/healthz`, { agent }, (res) => {
      res.resume();
      res.on("end", () => {
        agent.destroy();
        resolve(res.headers["keep-alive"]?.toString());
      });
    })
      .on("error", reject)
      .end();
  });

describe("the API process's connections", () => {
  it("when a client keeps its connection alive, then the API keeps it HTTP_KEEP_ALIVE_TIMEOUT_MS (65 s by default) and says so", async () => {
    const service = await startService();
    try {
      await service.startApi({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "42000" });
      const byDefault = await service.startApi();
      expect(await keepAliveOf(service.base)).toBe("timeout=42");
      expect(await keepAliveOf(byDefault.base)).toBe("timeout=65");
    } finally {
      await service.stop();
    }
  });
});
