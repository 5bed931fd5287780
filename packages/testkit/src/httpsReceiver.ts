import { once } from "node:events";
import { writeFile, mkdtemp } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";
import { changes } from "./changes.js";

export interface TestCertificate {
  key: string;
  cert: string;
  /** PEM file of the certificate, for WEBHOOK_CA_FILE. */
  caFile: string;
}

let certificate: Promise<TestCertificate> | undefined;

/** One self-signed certificate per test process, valid for 127.0.0.1, ::1 and localhost. */
export function testCertificate(): Promise<TestCertificate> {
  certificate ??= (async () => {
    const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
      keySize: 2048,
      algorithm: "sha256",
      extensions: [
        { name: "basicConstraints", cA: true },
        {
          name: "subjectAltName",
          altNames: [
            { type: 7, ip: "127.0.0.1" },
            { type: 7, ip: "::1" },
            { type: 2, value: "localhost" },
          ],
        },
      ],
    } as never);
    const caFile = join(await mkdtemp(join(tmpdir(), "svc-ca-")), "ca.pem");
    await writeFile(caFile, pems.cert);
    return { key: pems.private, cert: pems.cert, caFile };
  })();
  return certificate;
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  /** What the answer carries (a file served to the service, say); none by default. */
  body?: Uint8Array | string;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply;

export interface HttpsReceiver {
  url(path?: string): string;
  requests: ReceivedRequest[];
  /** How the next requests are answered; change it at any time. */
  respond: Responder;
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTPS server on 127.0.0.1 that records every request and answers as told (200 by default). */
export async function startHttpsReceiver(
  respond: Responder = () => ({ status: 200 }),
): Promise<HttpsReceiver> {
  const { key, cert } = await testCertificate();
  const requests: ReceivedRequest[] = [];
  const arrivals = changes();
  const receiver: HttpsReceiver = {
    requests,
    respond,
    url: (path = "/hook") => `https://127.0.0.1:${(server.address() as { port: number }).port}${path}`,
    waitForRequests(count, timeoutMs = 20_000) {
      return arrivals.until(
        () => (requests.length >= count ? requests.slice(0, count) : undefined),
        timeoutMs,
        () => `expected ${count} requests within ${timeoutMs} ms, got ${requests.length}`,
      );
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = {
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      const reply = receiver.respond(request, requests.length);
      requests.push(request);
      arrivals.notify();
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers ?? {}).end(reply.body);
      }, reply.delayMs ?? 0);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return receiver;
}
