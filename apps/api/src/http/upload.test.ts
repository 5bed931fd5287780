import { readdir } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCatalogue, seedCatalogue } from "@svc/db";
import { createAccountWithKeys, rawHttp, testPng, waitFor } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

// Every API style's uploads go through one path (http/upload.ts). Attacked here as a client would
// on a real socket: dropped mid-file, a part that grows past the limit without a declared length,
// a declared length past it, hostile fields. Nothing may be left behind: no descriptor, no partial
// file in the store's .inputs, no row; and every refusal is answered at once.
describe("one upload path for every API style", () => {
  const MAX = 3 * 1024 * 1024;
  let api: ApiHarness;
  let server: http.Server;
  let port: number;
  let dir: string;
  let key: string;
  let testKey: string;
  const routes: { path: string; part: string; fields: Record<string, string> }[] = [
    { path: "/api/v1/files", part: "content", fields: {} },
    { path: "/replicate/v1/files", part: "content", fields: {} },
    { path: "/openai/v1/images/edits", part: "image", fields: { model: "acme/upscale" } },
    {
      path: "/openai/v1/videos",
      part: "input_reference",
      fields: { model: "acme/motion/clip", prompt: "w" },
    },
  ];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-uploads-"));
    api = await startApi({
      OUTPUT_DIR: dir,
      FILE_MAX_BYTES: String(MAX),
      FILE_QUOTA_BYTES_TEST: String(2 * 1024 * 1024),
    });
    await seedCatalogue(api.database.db, await loadCatalogue());
    const account = await createAccountWithKeys(api.database.db, 1_000_000);
    key = account.liveKey;
    testKey = account.testKey;
    server = http.createServer(api.app).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as AddressInfo).port;
    // The app's database pool opened to its size first, so that descriptors counted later are
    // the uploads' own.
    await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`http://127.0.0.1:${port}/api/v1/files`, { headers: { authorization: `Bearer ${key}` } }),
      ),
    );
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  const fds = async () => (await readdir("/proc/self/fd")).length;
  /** The store's input files now. */
  const stored = async () => new Set(await readdir(join(dir, ".inputs")).catch(() => [] as string[]));
  /** Files in the store that were not there before (a leftover names itself in the failure). */
  const storedSince = async (before: Set<string>) => [...(await stored())].filter((f) => !before.has(f));
  const nothingLeft = (before: Set<string>) =>
    waitFor(async () => (!(await storedSince(before)).length ? true : null), {
      what: "nothing left in .inputs",
    }).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${(await storedSince(before)).join(", ")}`);
    });
  const rows = () => api.database.db.file.count();
  /** A PNG of `size` bytes: a real image's header, then filler (what a type check reads is real). */
  const png = (size: number) => {
    const head = testPng(32, 32);
    return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 7)]);
  };
  const formStart = (fields: Record<string, string>, part: string) =>
    Buffer.from(
      Object.entries(fields)
        .map(([name, value]) => `--XYZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
        .join("") +
        `--XYZ\r\nContent-Disposition: form-data; name="${part}"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
  const formEnd = Buffer.from("\r\n--XYZ--\r\n");
  const head = (path: string, headers: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=XYZ\r\n${headers}\r\n`;

  /** Sends the headers and `sent` bytes of a body declared `declared` long, then goes away. */
  const dropMidFile = (path: string, start: Buffer, sent: number, declared: number) =>
    new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(head(path, `Content-Length: ${declared}\r\n`));
        socket.write(start);
        socket.write(png(sent));
        // Long enough for the store to have the file's first bytes, then the client is gone.
        setTimeout(() => socket.destroy(), 150);
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve());
    });

  it.each(routes)(
    "when 20 clients drop mid-file on $path, then no descriptor, partial file or row is left",
    async ({ path, part, fields }) => {
      const before = { fds: await fds(), stored: await stored(), rows: await rows() };
      const start = formStart(fields, part);
      await Promise.all(
        Array.from({ length: 20 }, () => dropMidFile(path, start, 1.5 * 1024 * 1024, MAX - 1024)),
      );
      await waitFor(
        async () =>
          !(await storedSince(before.stored)).length && (await fds()) <= before.fds + 8 ? true : null,
        { what: "every dropped upload's file and descriptor gone", timeoutMs: 15_000 },
      );
      expect(await rows()).toBe(before.rows);
    },
  );

  it.each(routes)(
    "when a part grows past FILE_MAX_BYTES with no declared length on $path, then 413 at once and nothing is stored",
    async ({ path, part, fields }) => {
      const before = { stored: await stored(), rows: await rows() };
      const body = Buffer.concat([formStart(fields, part), png(MAX + 512 * 1024), formEnd]);
      const chunked = Buffer.concat([
        Buffer.from(head(path, "Transfer-Encoding: chunked\r\n")),
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from("\r\n0\r\n\r\n"),
      ]);
      expect(await rawHttp(port, chunked)).toMatch(/^HTTP\/1\.1 413 /);
      const declared = await rawHttp(port, head(path, `Content-Length: ${10 * MAX}\r\n`));
      expect(declared).toMatch(/^HTTP\/1\.1 413 /);
      await nothingLeft(before.stored);
      expect(await rows()).toBe(before.rows);
    },
  );

  it.each([...routes, { path: "/api/v1/weights", part: "file", fields: {} }])(
    "when a form's part names nothing on $path, then 400 and the process lives on",
    async ({ path, fields }) => {
      const body = Buffer.concat([
        Buffer.from(
          Object.entries(fields)
            .map(
              ([name, value]) =>
                `--XYZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
            )
            .join(""),
        ),
        // A field, then a file, whose Content-Disposition gives no name.
        Buffer.from("--XYZ\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n"),
        Buffer.from(
          '--XYZ\r\nContent-Disposition: form-data; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
        ),
        testPng(8, 8),
        formEnd,
      ]);
      const answer = await rawHttp(
        port,
        Buffer.concat([Buffer.from(head(path, `Content-Length: ${body.length}\r\n`)), body]),
      );
      // A 400 in every API style's own words (Replicate's is 422).
      expect(answer).toMatch(/^HTTP\/1\.1 (400|422) /);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    },
  );

  it("when a form ends without its closing boundary inside a part that is not taken, then 400 and the process lives on", async () => {
    const image = testPng(16, 16);
    const unterminated = (path: string, parts: Buffer[]) => {
      const body = Buffer.concat(parts);
      return rawHttp(
        port,
        Buffer.concat([Buffer.from(head(path, `Content-Length: ${body.length}\r\n`)), body]),
      );
    };
    // A part of a name the form does not take, cut short with the body.
    const notTaken = await unterminated("/openai/v1/images/edits", [
      formStart({ model: "acme/upscale" }, "x"),
      image,
    ]);
    expect(notTaken).toMatch(/^HTTP\/1\.1 400 /);
    // An upload's second file part (drained unread), cut short with the body.
    const drained = await unterminated("/api/v1/files", [
      formStart({}, "content"),
      image,
      Buffer.from("\r\n"),
      formStart({}, "metadata"),
      Buffer.from("{"),
    ]);
    expect(drained).toMatch(/^HTTP\/1\.1 (201|400) /);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("when an OpenAI form holds a NUL, gives its file twice, or a creation's Idempotency-Key is too long, then OpenAI's 400 and nothing is made", async () => {
    const before = { stored: await stored(), rows: await rows(), runs: await api.database.db.run.count() };
    const image = testPng(16, 16);
    const send = (path: string, parts: Buffer[], extra = "") => {
      const body = Buffer.concat([...parts, formEnd]);
      return rawHttp(
        port,
        Buffer.concat([Buffer.from(head(path, `Content-Length: ${body.length}\r\n${extra}`)), body]),
      );
    };
    const answer = (raw: string) => ({
      status: Number(raw.slice(9, 12)),
      error: (JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as { error: { param: string | null } })
        .error,
    });
    for (const [field, value] of [
      ["prompt", "a\0b"],
      ["model", "acme/motion/clip\0"],
    ] as const) {
      const fields = { model: "acme/motion/clip", prompt: "waves", [field]: value };
      const raw = await send("/openai/v1/videos", [formStart(fields, "input_reference"), image]);
      expect(answer(raw)).toMatchObject({ status: 400, error: { param: field } });
    }
    const twice = await send("/openai/v1/images/edits", [
      formStart({ model: "acme/upscale" }, "image"),
      image,
      Buffer.from("\r\n"),
      formStart({}, "image[]"),
      image,
    ]);
    expect(answer(twice)).toMatchObject({ status: 400, error: { param: "image[]" } });
    const longKey = await rawHttp(
      port,
      `POST /openai/v1/images/generations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nIdempotency-Key: ${"k".repeat(3000)}\r\nContent-Length: 46\r\n\r\n{"model":"acme/pixel/fast","prompt":"a keyed"}`,
    );
    expect(answer(longKey)).toMatchObject({ status: 400, error: { param: "idempotency-key" } });
    await nothingLeft(before.stored);
    expect(await rows()).toBe(before.rows);
    expect(await api.database.db.run.count()).toBe(before.runs);
  });

  it("when a test key's files reach FILE_QUOTA_BYTES_TEST, then its next upload is 413 FILE_QUOTA_EXCEEDED in every API style", async () => {
    const upload = (path: string, bytes: Buffer) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${testKey}`, "content-type": "application/octet-stream" },
        body: bytes,
      });
    const file = png(900 * 1024);
    expect((await upload("/api/v1/files", file)).status).toBe(201);
    expect((await upload("/replicate/v1/files", file)).status).toBe(201);
    const ours = await upload("/api/v1/files", file);
    expect(ours.status).toBe(413);
    expect(((await ours.json()) as { error: { code: string } }).error.code).toBe("FILE_QUOTA_EXCEEDED");
    const replicate = await upload("/replicate/v1/files", file);
    expect(replicate.status).toBe(413);
    expect(((await replicate.json()) as { detail: string }).detail).toMatch(/FILE_QUOTA_BYTES_TEST/);
    // The live key's files are counted apart.
    const live = await fetch(`http://127.0.0.1:${port}/api/v1/files`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" },
      body: file,
    });
    expect(live.status).toBe(201);
  });
});
