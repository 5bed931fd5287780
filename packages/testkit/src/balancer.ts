import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

export interface Balancer {
  url: string;
  /** The ports connections are spread over (a Kubernetes Service's endpoints); change it at will. */
  targets: number[];
  close(): Promise<void>;
}

/**
 * A TCP balancer on 127.0.0.1 in front of several workers' Cog callback servers, as a Service
 * (kube-proxy) is in production: each connection goes to the next target round robin, and one
 * whose target refuses it (a killed worker) goes to the one after.
 */
export async function startBalancer(targets: number[] = []): Promise<Balancer> {
  let next = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    client.on("error", () => {});
    client.pause();
    const tries = [...balancer.targets];
    const attempt = (left: number) => {
      if (!left) return void client.destroy();
      const upstream = connect(tries[next++ % tries.length]!, "127.0.0.1");
      upstream.once("error", () => attempt(left - 1));
      upstream.once("connect", () => {
        upstream.removeAllListeners("error");
        upstream.on("error", () => client.destroy());
        upstream.on("close", () => client.destroy());
        client.on("close", () => upstream.destroy());
        upstream.setNoDelay(true);
        client.setNoDelay(true);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(tries.length);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const balancer: Balancer = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    targets,
    async close() {
      for (const socket of open) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
  return balancer;
}
