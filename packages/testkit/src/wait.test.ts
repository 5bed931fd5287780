import { readFile } from "node:fs/promises";
import { createServer, Socket, type Server } from "node:net";
import { freePort } from "./wait.js";

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
const close = (server: Server) => new Promise((r) => server.close(r));

describe("freePort", () => {
  it("when ports are handed out while outgoing connections open, then none is one of theirs and each can be listened on", async () => {
    const [ephemeralLow] = (await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8"))
      .trim()
      .split(/\s+/)
      .map(Number);
    const target = await listen(0);
    const { port: targetPort } = target.address() as { port: number };
    // Outgoing connections take their local ports from the kernel's ephemeral range.
    const clients = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = new Socket();
            socket.once("error", reject);
            socket.connect(targetPort, "127.0.0.1", () => resolve(socket));
          }),
      ),
    );
    const taken = new Set(clients.map((s) => s.localPort));
    try {
      const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
      for (const port of ports) {
        expect(port).toBeLessThan(ephemeralLow!);
        expect(taken.has(port)).toBe(false);
      }
      for (const port of new Set(ports)) await close(await listen(port));
    } finally {
      for (const s of clients) s.destroy();
      await close(target);
    }
  });

  it("when a port is asked for with another free that far above it (a Redis Cluster node's bus), then both are below the ephemeral range and can be listened on", async () => {
    const [ephemeralLow] = (await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8"))
      .trim()
      .split(/\s+/)
      .map(Number);
    for (let i = 0; i < 20; i++) {
      const port = await freePort({ alsoFree: 10_000 });
      expect(port + 10_000).toBeLessThan(ephemeralLow!);
      await close(await listen(port + 10_000));
      await close(await listen(port));
    }
  });
});
