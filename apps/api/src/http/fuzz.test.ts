import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { loadCatalogue, seedCatalogue } from "@svc/db";
import { createAccountWithKeys, testPng } from "@svc/testkit";
import { buildOpenApiDocument } from "../openapi/document.js";
import { startApi, type ApiHarness } from "../test/harness.js";
import { adapterOf } from "../routes/api.js";

/**
 * A campaign of malformed requests over every operation of the OpenAPI document, sent as raw
 * bytes to the real app on a real socket (real Postgres and Redis behind it): hostile path
 * segments and percent-encodings, query values, bodies, content types and keys. Every answer
 * must be below 500 and, when an error, in the contract's format (the harness also checks each
 * response against the document). FUZZ_RUNS sets the number of requests.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Answer {
  status: number;
  body: string;
  /** The server answered before reading a body it had no use for, closed, and the reset cut the answer. */
  cut?: boolean;
}

function send(port: number, request: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      // A connection per request: a server that closes after an error must not fail the next one.
      {
        host: "127.0.0.1",
        port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent: false,
      },
      (res) => {
        // An event stream that opened is an answer; it would stay open as long as its run is queued.
        if (String(res.headers["content-type"]).startsWith("text/event-stream")) {
          resolve({ status: res.statusCode ?? 0, body: "" });
          return req.destroy();
        }
        const chunks: Buffer[] = [];
        const answer = () => ({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve(answer()));
        // With Connection: close, a server that answers (e.g. GET /metrics) without reading a large
        // body closes while the client still uploads; the peer's reset may cut the answer short.
        // Its status was received and is still checked.
        res.on("error", (error) =>
          request.body?.length ? resolve({ ...answer(), cut: true }) : reject(error),
        );
      },
    );
    req.on("error", reject);
    req.end(request.body);
  });
}

/** Percent-encodes every UTF-16 code unit as WTF-8 bytes, so that lone surrogates reach the server. */
function encodeUnits(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const ch = text[i]!;
    if (/[A-Za-z0-9\-._~]/.test(ch)) out += ch;
    else if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (unit < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
        out += encodeURIComponent(text.slice(i, i + 2));
        i++;
      } else {
        out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
          .map((b) => `%${b.toString(16).toUpperCase()}`)
          .join("");
      }
    } else out += encodeURIComponent(ch);
  }
  return out;
}

const RAW_FRAGMENTS = [
  "%",
  "%%",
  "%zz",
  "%E0%A4%A",
  "%C0%AF",
  "%ED%A0%80",
  "%00",
  "%FF",
  "%2e%2e",
  "..",
  "%2F",
  "%u0041",
  "a%",
];

const nastyText = fc.oneof(
  fc.constantFrom(
    "",
    "\0",
    "a\0b",
    "\ud800",
    "x\udfff",
    "😀",
    "\u202e",
    "run_" + "A".repeat(22),
    "wh_" + "A".repeat(22),
    "a".repeat(3000),
    "null",
    "[]",
    "-1",
    "1e400",
    "99999999999999999999",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59+14:00",
    "2026-02-30T00:00:00Z",
  ),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
);

/** A value in about one request in five, else null (fc.option's freq says how often null is). */
const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

/** What a header value can carry: visible ASCII, space and latin-1 (obs-text). */
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

/** A path segment or query value: nasty text percent-encoded, or a raw malformed encoding. */
const targetPiece = fc.oneof(
  { weight: 3, arbitrary: nastyText.map(encodeUnits) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_FRAGMENTS) },
);

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const cursorValue = fc.oneof(
  fc.constantFrom(
    base64url(["-271821-04-20T00:00:00.000Z", "run_x"]),
    base64url(["+275760-09-13T00:00:00.000Z", "run_x"]),
    base64url(["2026-01-01T00:00:00.000Z", "a\0b"]),
    base64url(["2026-01-01T00:00:00.000Z", "\ud800"]),
    base64url([1, 2]),
    base64url({}),
    base64url(null),
    "not-base64!",
  ),
  nastyText.map((t) => base64url([t, t])),
);

const deepJson = fc
  .integer({ min: 20, max: 200_000 })
  .chain((depth) =>
    fc.constantFrom(
      `{"input":{"prompt":${"[".repeat(depth)}${"]".repeat(depth)}}}`,
      `{"input":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`,
      `${"[".repeat(depth)}${"]".repeat(depth)}`,
    ),
  );

/**
 * Multipart forms as OpenAI's and Replicate's clients send them, made hostile: fields of nasty
 * names and values (NUL, lone surrogates, 3,000 characters), file parts under the names the forms
 * take and others, twice, of a real PNG or random bytes, cut short or without a closing boundary.
 */
const formPart = fc.oneof(
  fc
    .record({
      name: fc.oneof(
        fc.constantFrom("model", "prompt", "size", "seconds", "n", "response_format"),
        nastyText,
      ),
      value: fc.oneof(fc.constantFrom("acme/upscale", "acme/motion/clip", "acme/pixel/fast", "4"), nastyText),
    })
    .map(({ name, value }) =>
      Buffer.from(`--XYZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ),
  fc
    .record({
      name: fc.constantFrom("image", "image[]", "mask", "input_reference", "content", "file", "x"),
      bytes: fc.oneof(
        fc.constant(Buffer.from(testPng(8, 8))),
        fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
      ),
    })
    .map(({ name, bytes }) =>
      Buffer.concat([
        Buffer.from(`--XYZ\r\nContent-Disposition: form-data; name="${name}"; filename="a.png"\r\n\r\n`),
        bytes,
        Buffer.from("\r\n"),
      ]),
    ),
);
const formBody = fc
  .record({ parts: fc.array(formPart, { maxLength: 6 }), end: fc.constantFrom("--XYZ--\r\n", "", "--XY") })
  .map(({ parts, end }) => Buffer.concat([...parts, Buffer.from(end)]));

const body = fc.oneof(
  fc
    .record(
      {
        input: fc.record({ prompt: nastyText, num_images: fc.anything(), image_size: nastyText }),
        webhook_url: nastyText.map((t) => `https://example.com/${t}`),
        url: nastyText.map((t) => `https://example.com/${t}`),
        events: fc.array(nastyText, { maxLength: 3 }),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  deepJson,
  fc.constantFrom(
    '{"input":{"prompt":"\\u0000"}}',
    '{"input":{"prompt":"\\ud800"}}',
    '{"input":{"\\u0000":"x"}}',
    '{"input":{"prompt":"a"},"webhook_url":"https://e.com/\\udfff"}',
    '{"url":"https://e.com/\\u0000"}',
    '{"input":',
    "\uFEFF{}",
  ),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  formBody,
  formBody,
);

const contentType = fc.constantFrom(
  "multipart/form-data; boundary=XYZ",
  "multipart/form-data; boundary=XYZ",
  "multipart/form-data",
  "application/json",
  "application/json",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "application/json; charset=nonsense",
  "text/plain",
  "application/x-www-form-urlencoded",
  "",
);

interface Operation {
  method: string;
  template: string;
  query: string[];
}

function operationsOf(doc: ReturnType<typeof buildOpenApiDocument>): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(
      item as Record<string, { parameters?: Array<{ in: string; name: string }> }>,
    )) {
      const query = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      ops.push({ method: method.toUpperCase(), template, query: [...query, "cursor", "x"] });
    }
  }
  return ops;
}

describe("a campaign of malformed requests over every route", () => {
  let api: ApiHarness;
  let server: http.Server;
  let port: number;
  let keys: { live: string; test: string };
  let ids: { run: string; webhook: string };

  beforeAll(async () => {
    api = await startApi();
    await seedCatalogue(api.database.db, await loadCatalogue());
    const account = await createAccountWithKeys(api.database.db, 1_000_000);
    keys = { live: account.liveKey, test: account.testKey };
    server = http.createServer(api.app).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as AddressInfo).port;
    const run = await send(port, {
      method: "POST",
      path: "/api/v1/models/acme/echo/run",
      headers: { authorization: `Bearer ${keys.live}`, "content-type": "application/json" },
      body: Buffer.from('{"input":{"prompt":"hi"}}'),
    });
    const webhook = await send(port, {
      method: "POST",
      path: "/api/v1/webhooks",
      headers: { authorization: `Bearer ${keys.live}`, "content-type": "application/json" },
      body: Buffer.from('{"url":"https://example.com/hook"}'),
    });
    if (run.status !== 201 || webhook.status !== 201)
      throw new Error(`setup failed: ${run.body} ${webhook.body}`);
    ids = { run: JSON.parse(run.body).data.run_id, webhook: JSON.parse(webhook.body).data.id };
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  it("when thousands of malformed requests arrive, then none is answered with a 5xx and every error has the contract's body", async () => {
    const operations = operationsOf(buildOpenApiDocument("http://localhost"));
    const known: Record<string, string[]> = {
      modelId: ["acme/echo", "acme/pixel/fast"],
      runId: [ids.run],
      webhookId: [ids.webhook],
    };
    const requestArb = fc
      .record({
        op: fc.constantFrom(...operations),
        pieces: fc.array(targetPiece, { minLength: 1, maxLength: 3 }),
        useKnown: fc.boolean(),
        query: fc.array(fc.tuple(fc.nat(), fc.oneof(targetPiece, cursorValue)), { maxLength: 4 }),
        body: fc.option(body, { freq: 2 }),
        contentType,
        key: fc.constantFrom("live", "live", "live", "test", "bogus", "none"),
        // What a header value can carry: visible ASCII, space and latin-1 (obs-text).
        idempotencyKey: fc.option(
          fc.string({
            unit: fc
              .integer({ min: 0x20, max: 0xff })
              .filter((c) => c !== 0x7f)
              .map((c) => String.fromCharCode(c)),
            maxLength: 300,
          }),
          { freq: 3 },
        ),
        longIdempotencyKey: rarely(fc.integer({ min: 256, max: 3000 })),
        // The other request headers the routes that make runs read (no valid wait: with no worker
        // here, each would hold the campaign for its length).
        prefer: rarely(
          fc.oneof(fc.constantFrom("wait=0", "wait=99999", "wait=-1", "respond-async"), headerText),
        ),
        cancelAfter: rarely(fc.oneof(fc.constantFrom("1s", "0", "25h", "1h30m", "-5"), headerText)),
        methodSwap: fc.option(fc.constantFrom("PUT", "PATCH", "OPTIONS", "HEAD", "DELETE", "POST", "GET"), {
          freq: 8,
        }),
      })
      .map((r): Sent => {
        let pieceIndex = 0;
        const path = r.op.template.replace(/\{(\w+)\}/g, (_m, name: string) => {
          const choices = known[name];
          if (r.useKnown && choices) return choices[pieceIndex++ % choices.length]!;
          return r.pieces[pieceIndex++ % r.pieces.length]!;
        });
        const query = r.query.map(([n, value]) => `${r.op.query[n % r.op.query.length]}=${value}`).join("&");
        const headers: Record<string, string> = {};
        if (r.key === "live" || r.key === "test") headers.authorization = `Bearer ${keys[r.key]}`;
        if (r.key === "bogus") headers.authorization = `Bearer svc_live_${"x".repeat(43)}`;
        if (r.idempotencyKey !== null) headers["idempotency-key"] = r.idempotencyKey;
        if (r.longIdempotencyKey !== null) headers["idempotency-key"] = "k".repeat(r.longIdempotencyKey);
        if (r.prefer !== null && !/^\s*wait\s*(=\s*\d+\s*)?$/i.test(r.prefer)) headers.prefer = r.prefer;
        if (r.cancelAfter !== null) headers["cancel-after"] = r.cancelAfter;
        if (r.body !== null && r.contentType) headers["content-type"] = r.contentType;
        // Node's client would send a GET's body without a length, as a second (garbage) request.
        if (r.body !== null) headers["content-length"] = String(Buffer.byteLength(r.body));
        return {
          method: r.methodSwap ?? r.op.method,
          path: query ? `${path}?${query}` : path,
          headers,
          body: r.body === null ? undefined : Buffer.from(r.body),
        };
      });

    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        const answer = await send(port, request);
        const described = `${request.method} ${request.path.slice(0, 200)} -> ${answer.status} ${answer.body.slice(0, 200)}`;
        if (answer.status >= 500) failures.push(described);
        // 431: Node's HTTP parser refused headers past its 16 KB limit before the app saw the
        // request (a bare status, no body of ours): outside what the app answers.
        if (answer.status >= 400 && answer.status !== 431 && request.method !== "HEAD" && !answer.cut) {
          let body: unknown;
          try {
            body = JSON.parse(answer.body);
          } catch {
            // reported below
          }
          // Another API style's paths answer its own error shape; ours the contract's.
          const style = adapterOf(request.path)?.errorStyle;
          const error = (body as { error?: { code?: unknown; request_id?: unknown } } | undefined)?.error;
          const ok = style
            ? style.schema.safeParse(body).success
            : typeof error?.code === "string" && typeof error.request_id === "string";
          if (!ok) failures.push(`not the ${style ? "API style's" : "contract's"} error body: ${described}`);
        }
      }),
      { numRuns: RUNS },
    );
    expect(failures.slice(0, 20)).toEqual([]);
  });
});
