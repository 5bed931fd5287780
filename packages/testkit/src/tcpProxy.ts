import { connect, createServer, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  /** An outage: every open connection is cut and new ones are refused at once, until restore(). */
  cut(): void;
  restore(): void;
  /** Connections turned away while cut: the clients' reconnection attempts. */
  refused(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a shared service (Postgres, Redis), so that a test can take
 * the service away from one process without stopping the machine's service for everyone.
 */
export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  let refused = 0;
  const server = createServer((client) => {
    if (down) {
      refused++;
      return client.destroy();
    }
    const upstream = connect(targetPort, targetHost);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        open.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      down = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      down = false;
    },
    refused: () => refused,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
