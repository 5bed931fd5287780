import { once } from "node:events";
import { createServer, request, type Server } from "node:http";

export interface Balancer {
  url: string;
  /** The ports requests are spread over (a Kubernetes Service's endpoints); change it at will. */
  targets: number[];
  close(): Promise<void>;
}

/**
 * An HTTP balancer on 127.0.0.1 in front of several workers' Cog callback servers, as a Service
 * would be in production: requests go round robin to the targets, and one whose target refuses
 * the connection (a killed worker) goes to the next.
 */
export async function startBalancer(targets: number[] = []): Promise<Balancer> {
  let next = 0;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const tries = [...balancer.targets];
    const attempt = (left: number) => {
      if (!left || !tries.length) return void res.writeHead(502).end();
      const port = tries[next++ % tries.length]!;
      const out = request(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on("error", () => attempt(left - 1));
      out.end(body);
    };
    attempt(tries.length);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const balancer: Balancer = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    targets,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
  return balancer;
}
