import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getFromServer, ImportRefused, serverBase } from "./serverImport.js";

// The one request every kind's import makes to an operator's server, against a real HTTP server.
describe("an import's request to a model server", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/big") {
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = Buffer.alloc(1024 * 1024, 32);
        let sent = 0;
        const more = () => {
          while (sent < 8) {
            sent++;
            if (!res.write(chunk)) return void res.once("drain", more);
          }
          res.end();
        };
        return more();
      }
      if (req.url === "/moved") return res.writeHead(302, { location: "http://169.254.169.254/" }).end();
      res.writeHead(200).end(JSON.stringify({ auth: req.headers.authorization ?? null }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("answers a small body with its status, the headers it was given sent", async () => {
    expect(await getFromServer(`${base}/ok`, { authorization: "Bearer k" })).toEqual({
      status: 200,
      body: JSON.stringify({ auth: "Bearer k" }),
    });
  });

  it("never follows a redirect, and reads no more than 5 MB", async () => {
    expect((await getFromServer(`${base}/moved`))?.status).toBe(302);
    expect(await getFromServer(`${base}/big`)).toBeUndefined();
  });

  it("takes a server's address in one spelling and refuses a metadata address", async () => {
    expect(await serverBase(`${base}/`)).toBe(base);
    await expect(serverBase("http://169.254.169.254/latest")).rejects.toBeInstanceOf(ImportRefused);
  });
});
