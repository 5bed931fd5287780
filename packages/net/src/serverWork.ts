// The request that hands a model server its work (Cog's predictions), over node:http rather than
// undici, which every other request to a server uses (servers.ts). A freed server is idle until
// this request reaches it, and undici (7.28 and later) defers each request on a reused idle
// keep-alive socket to the event loop's check phase, to see first whether the server sent bytes on
// it meanwhile (GHSA-35p6-xmwp-9g52, nodejs/undici#5493, #5707): in a busy worker that is behind
// the rest of the loop's I/O callbacks. In bench:batches a prediction reached its server 2.9-3.2 ms
// after it was sent through undici, 1.8-1.9 ms through this (docs/benchmarks.md). Node's agent
// guards the same thing only in part: a free socket has no parser, so bytes a server sends on it
// are dropped once the event loop has read them (serverWork.test.ts); bytes that come in the same
// moment the socket is taken for the next request (found in session 28: a request sent within
// three turns of the loop after them) are read as that request's answer, the window undici's
// deferral closes. A Cog server writes only answers to the requests it is sent, never on an idle
// connection, so the window is left open for the millisecond it saves. The other kinds' work
// (forms, binary answers) still goes through undici.
import http from "node:http";
import https from "node:https";
import { serverLookup } from "./lookups.js";

// Idle sockets are kept 30 s as undici's are, less when a server's Keep-Alive header says it
// closes them sooner (Node's agent then closes them a second before it does).
const options = { keepAlive: true, timeout: 30_000, lookup: serverLookup as never };
const clients = {
  "http:": { agent: new http.Agent(options), request: http.request },
  "https:": { agent: new https.Agent(options), request: https.request },
};

export interface ServerWork {
  method: "POST" | "PUT";
  headers: Record<string, string>;
  body: string;
  /** Longest the server may stay silent (0: as long as the prediction takes, bounded by `signal`). */
  idleTimeoutMs: number;
  signal?: AbortSignal;
}

/** Sends `work` to `url` on a kept-alive connection: the answer's status and body. */
export function sendServerWork(url: URL, work: ServerWork): Promise<{ status: number; body: string }> {
  const client = clients[url.protocol as keyof typeof clients];
  if (!client) return Promise.reject(new Error(`not an http(s) URL: ${url.protocol}`));
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: work.method,
        agent: client.agent,
        headers: { ...work.headers, "content-length": String(Buffer.byteLength(work.body)) },
        ...(work.signal && { signal: work.signal }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
        res.on(
          "close",
          () => res.complete || reject(new Error("the server closed the connection mid-answer")),
        );
      },
    );
    req.on("error", reject);
    if (work.idleTimeoutMs > 0)
      req.setTimeout(work.idleTimeoutMs, () =>
        req.destroy(new Error(`no answer for ${work.idleTimeoutMs} ms`)),
      );
    req.end(work.body);
  });
}
