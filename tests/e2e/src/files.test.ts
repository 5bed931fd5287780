import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { AnyRun, FileObject as FileView, ModelRunClient } from "@svc/sdk";
import {
  claimedPng,
  rawHttp,
  freePort,
  seedCogModel,
  startFakeCog,
  startHttpsReceiver,
  startS3Server,
  testPng,
  testWav,
  waitFor,
  type FakeCog,
  type HttpsReceiver,
  type Reply,
  type TestS3Server,
} from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Input files against the built API and worker: uploads (raw and multipart), their type decided by
// their bytes, file inputs by id, data URL and https URL (a real HTTPS server), and a Cog-protocol
// server that downloads what it is given, as Cog does.
describe("input files", () => {
  let service: E2EService;
  let cog: FakeCog;
  let origin: HttpsReceiver;
  let live: { key: string; client: ModelRunClient; accountId: string };
  let testKey: string;
  let otherKey: string;
  const MAX_BYTES = 2 * 1024 * 1024;
  const MODEL = "files/restore";
  /** An image-to-image model's input: an image in (a file field), an image out. */
  const IMAGE_TO_IMAGE = {
    type: "object",
    properties: {
      prompt: { type: "string", minLength: 1 },
      image: { type: "string", format: "uri", "x-media": "image", description: "The image to restore." },
    },
    required: ["prompt", "image"],
    additionalProperties: false,
  };

  beforeAll(async () => {
    const callbackPort = await freePort();
    service = await startService({ FILE_MAX_BYTES: String(MAX_BYTES), FILE_MAX_PIXELS: "4000000" });
    await service.startApi();
    await service.startWorker({
      COG_CALLBACK_URL: `http://127.0.0.1:${callbackPort}`,
      COG_CALLBACK_PORT: String(callbackPort),
      COG_CALLBACK_HOST: "127.0.0.1",
      // Expired files are swept with the runs: often, so that a test sees it.
      SWEEP_INTERVAL_MS: "250",
    });
    cog = await startFakeCog({ behaviour: { delayMs: 50 } });
    origin = await startHttpsReceiver();
    await seedCogModel(service.database.db, MODEL, [cog.url], { input_schema: IMAGE_TO_IMAGE });
    const a = await service.account(1000);
    live = { key: a.liveKey, client: a.client, accountId: a.accountId };
    testKey = a.testKey;
    otherKey = (await service.account(1000)).liveKey;
  });
  afterAll(async () => {
    await cog?.close();
    await origin?.close();
    await service?.stop();
  });

  const api = (path: string, init: RequestInit = {}, key = live.key) =>
    fetch(`${service.base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
    });
  const upload = (
    body: NonNullable<RequestInit["body"]>,
    contentType = "application/octet-stream",
    key = live.key,
  ) => api("/files", { method: "POST", body, headers: { "content-type": contentType } }, key);
  const uploaded = async (body: NonNullable<RequestInit["body"]>, key = live.key) => {
    const res = await upload(body, "application/octet-stream", key);
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: FileView }).data;
  };
  const createRun = (input: Record<string, unknown>, key = live.key, model = MODEL) =>
    api(
      `/models/${model}/run`,
      {
        method: "POST",
        body: JSON.stringify({ input }),
        headers: { "content-type": "application/json" },
      },
      key,
    );
  const until = (runId: string, statuses: string[]) =>
    waitFor(
      async () => {
        const run: AnyRun = await live.client.runs.get(runId);
        return statuses.includes(run.status) ? run : null;
      },
      { what: `run ${runId} to be ${statuses.join("/")}` },
    );
  /** The run's input as stored (the public run view does not show it). */
  const inputOf = async (runId: string) =>
    (await service.database.db.run.findUniqueOrThrow({ where: { id: runId } })).input as Record<
      string,
      unknown
    >;
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

  it("when an image is uploaded, then it is typed by its bytes, listed, readable and deletable by its account only", async () => {
    const png = testPng(64, 48);
    // The client's header says text; the bytes say PNG.
    const res = await upload(png, "text/plain");
    expect(res.status).toBe(201);
    const file = ((await res.json()) as { data: FileView }).data;
    expect(file).toMatchObject({
      content_type: "image/png",
      size: png.length,
      sha256: sha256(png),
      width: 64,
      height: 48,
      url: `${service.base}/api/v1/files/${file.id}/content`,
    });
    expect(Date.parse(file.expires_at) - Date.parse(file.created_at)).toBe(24 * 3_600_000);

    const got = await api(`/files/${file.id}`);
    expect(((await got.json()) as { data: FileView }).data).toEqual(file);
    const content = await api(`/files/${file.id}/content`);
    expect(content.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await content.arrayBuffer())).toEqual(png);
    const list = (await (await api("/files")).json()) as { data: { files: FileView[] } };
    expect(list.data.files.map((f) => f.id)).toContain(file.id);

    // Another account, and the same account's test key, see nothing of it.
    for (const key of [otherKey, testKey]) {
      expect((await api(`/files/${file.id}`, {}, key)).status).toBe(404);
      expect((await api(`/files/${file.id}/content`, {}, key)).status).toBe(404);
      expect((await api(`/files/${file.id}`, { method: "DELETE" }, key)).status).toBe(404);
    }
    // Anonymous callers get nothing either.
    expect((await fetch(`${service.base}/api/v1/files/${file.id}/content`)).status).toBe(401);

    const deleted = await api(`/files/${file.id}`, { method: "DELETE" });
    expect(await deleted.json()).toEqual({ data: { id: file.id, deleted: true } });
    expect((await api(`/files/${file.id}`)).status).toBe(404);
    const gone = await api(`/files/${file.id}/content`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("FILE_NOT_FOUND");
  });

  it("when a file's retention is over, then it is no longer served or usable, and the worker deletes its bytes", async () => {
    const file = await uploaded(testPng(8, 8, "short-lived"));
    const stored = join(service.env.OUTPUT_DIR!, ".inputs", `${file.id}.png`);
    await stat(stored);
    await service.database.db.file.update({
      where: { id: file.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await api(`/files/${file.id}`)).status).toBe(404);
    expect((await createRun({ prompt: "x", image: file.id })).status).toBe(400);
    await waitFor(
      async () =>
        (await service.database.db.file.findUniqueOrThrow({ where: { id: file.id } })).deletedAt !== null,
      { what: "the sweep to expire the file" },
    );
    await waitFor(
      async () =>
        stat(stored).then(
          () => false,
          () => true,
        ),
      { what: "its bytes to go" },
    );
  });

  it("when a multipart form carries the file (as Replicate's clients send it), then it is stored the same", async () => {
    const wav = testWav();
    const form = new FormData();
    form.set("filename", "voice.wav");
    form.set("content", new Blob([wav], { type: "application/octet-stream" }), "voice.wav");
    const res = await api("/files", { method: "POST", body: form });
    expect(res.status).toBe(201);
    const file = ((await res.json()) as { data: FileView }).data;
    expect(file).toMatchObject({ content_type: "audio/wav", size: wav.length, width: null, height: null });
    const content = await api(`/files/${file.id}/content`);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(wav);

    const empty = new FormData();
    empty.set("filename", "nothing");
    const refused = await api("/files", { method: "POST", body: empty });
    expect(refused.status).toBe(400);
  });

  it("when a file is of no accepted type, too large, or an image of too many pixels, then 415, 413 or 400 and nothing is stored", async () => {
    const before = await service.database.db.file.count();
    const html = await upload(Buffer.from("<html><script>alert(1)</script></html>"), "image/png");
    expect(html.status).toBe(415);
    expect(((await html.json()) as { error: { code: string } }).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");

    // Declared too large: refused before the body is read. Only its first bytes are written: a
    // client writing the whole body while the answer comes may find the connection closed (EPIPE).
    const big = Buffer.concat([testPng(8, 8), Buffer.alloc(MAX_BYTES)]);
    const declared = await rawHttp(
      Number(new URL(service.base).port),
      Buffer.concat([
        Buffer.from(
          `POST /api/v1/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.key}\r\n` +
            `Content-Type: application/octet-stream\r\nContent-Length: ${big.length}\r\n\r\n`,
        ),
        big.subarray(0, 64),
      ]),
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    // Streamed without a length: cut off at the limit.
    const streamed = await api("/files", {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(big);
          controller.close();
        },
      }),
      duplex: "half",
      headers: { "content-type": "application/octet-stream" },
    } as RequestInit);
    expect(streamed.status).toBe(413);

    const bomb = await upload(claimedPng(100_000, 100_000));
    expect(bomb.status).toBe(400);
    expect(JSON.stringify(await bomb.json())).toMatch(/100000x100000/);
    expect((await upload(Buffer.alloc(0))).status).toBe(400);

    expect(await service.database.db.file.count()).toBe(before);
  });

  it("when an upload's body is cut short, malformed or abandoned, then it is a 4xx (or nothing, for a client gone) and the API keeps serving", async () => {
    const port = Number(new URL(service.base).port);
    const raw = (bytes: Buffer | string, hangUpAfterMs?: number) => rawHttp(port, bytes, hangUpAfterMs);
    const head = (headers: string) =>
      `POST /api/v1/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.key}\r\n${headers}\r\n`;
    const png = testPng(8, 8);
    const part = Buffer.concat([
      Buffer.from('--XYZ\r\nContent-Disposition: form-data; name="content"; filename="a.png"\r\n\r\n'),
      png,
    ]);
    // A form whose last chunk comes before its closing boundary.
    const cut = await raw(
      Buffer.concat([
        Buffer.from(
          head("Content-Type: multipart/form-data; boundary=XYZ\r\nTransfer-Encoding: chunked\r\n"),
        ),
        Buffer.from(`${part.length.toString(16)}\r\n`),
        part,
        Buffer.from("\r\n0\r\n\r\n"),
      ]),
    );
    expect(cut).toMatch(/^HTTP\/1\.1 400 [\s\S]*not received whole/);
    expect(await raw(head("Content-Type: multipart/form-data\r\nContent-Length: 5\r\n") + "hello")).toMatch(
      /^HTTP\/1\.1 400 [\s\S]*boundary/,
    );
    expect(await raw(head("Content-Encoding: gzip\r\nContent-Length: 5\r\n") + "hello")).toMatch(
      /^HTTP\/1\.1 415 /,
    );
    // A client that goes away halfway through its file.
    await raw(Buffer.concat([Buffer.from(head("Content-Length: 100000\r\n")), png]), 200);
    await new Promise((r) => setTimeout(r, 200));
    expect((await upload(png)).status).toBe(201);
  });

  it("when a run names an uploaded file, then its Cog server downloads a signed URL of our store and gets the same bytes", async () => {
    const png = testPng(32, 32, "a run's input");
    const file = await uploaded(png);
    const res = await createRun({ prompt: "restore it", image: file.id });
    expect(res.status).toBe(201);
    const { data: created } = (await res.json()) as { data: { run_id: string } };
    const run = await until(created.run_id, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");
    expect(await inputOf(created.run_id)).toMatchObject({ image: file.id });

    const fetched = cog.fetched.find((f) => f.id === created.run_id)!;
    expect(fetched.field).toBe("image");
    expect(fetched.url.startsWith(`${service.base}/files/inputs/${file.id}.png?expires=`)).toBe(true);
    expect(fetched).toMatchObject({ status: 200, contentType: "image/png" });
    expect(fetched.bytes).toEqual(png);

    // The signed URL is good for that file only, unaltered, and while the file is there.
    const tampered = fetched.url.replace(
      /signature=(.)/,
      (_, c: string) => `signature=${c === "A" ? "B" : "A"}`,
    );
    expect((await fetch(tampered)).status).toBe(404);
    const later = fetched.url.replace(/expires=(\d+)/, (_, t: string) => `expires=${Number(t) + 60}`);
    expect((await fetch(later)).status).toBe(404);
    expect((await fetch(fetched.url)).status).toBe(200);
    await api(`/files/${file.id}`, { method: "DELETE" });
    expect((await fetch(fetched.url)).status).toBe(404);
  });

  it("when a run gives a data URL or an https URL, then the service takes the file in once and its server gets our URL", async () => {
    const png = testPng(16, 16, "from elsewhere");
    origin.respond = () => ({
      status: 200,
      body: png,
      headers: { "content-type": "application/octet-stream" },
    });
    const fromUrl = await createRun({ prompt: "by url", image: origin.url("/pictures/cat") });
    expect(fromUrl.status).toBe(201);
    const fromData = await createRun({
      prompt: "by data url",
      image: `data:image/png;base64,${png.toString("base64")}`,
    });
    expect(fromData.status).toBe(201);
    expect(origin.requests.filter((r) => r.path === "/pictures/cat")).toHaveLength(1);

    for (const res of [fromUrl, fromData]) {
      const { data } = (await res.json()) as { data: { run_id: string } };
      const run = await until(data.run_id, ["COMPLETED", "FAILED"]);
      expect(run.status).toBe("COMPLETED");
      const id = (await inputOf(data.run_id)).image as string;
      expect(id).toMatch(/^file_/);
      const file = ((await (await api(`/files/${id}`)).json()) as { data: FileView }).data;
      expect(file).toMatchObject({ content_type: "image/png", sha256: sha256(png), width: 16 });
      const fetched = cog.fetched.find((f) => f.id === data.run_id)!;
      expect(fetched.url.startsWith(`${service.base}/files/inputs/${id}.png?`)).toBe(true);
      expect(fetched.bytes).toEqual(png);
    }
  });

  it("when a file input cannot be had or is of the wrong kind, then 400 names the field and no run is made", async () => {
    const wav = await uploaded(testWav());
    const foreign = await uploaded(testPng(8, 8), otherKey);
    const testFile = await uploaded(testPng(8, 8), testKey);
    const png = testPng(8, 8);
    origin.respond = (request): Reply =>
      request.path === "/text"
        ? { status: 200, body: "just text", headers: { "content-type": "image/png" } }
        : request.path === "/cut"
          ? // A server that closes before the length it announced.
            {
              status: 200,
              body: png,
              headers: { "content-length": String(png.length + 5000), connection: "close" },
            }
          : { status: 404 };
    const runsBefore = await service.database.db.run.count({ where: { accountId: live.accountId } });
    const cases: [unknown, RegExp][] = [
      [wav.id, /expected image, got audio\/wav/],
      [foreign.id, /no file/],
      [testFile.id, /no file/],
      ["file_0000000000000000000000", /no file/],
      [origin.url("/missing"), /HTTP 404/],
      [origin.url("/text"), /not of a type/],
      [origin.url("/cut"), /ended before its file did/],
      [origin.url("/text").replace("https:", "http:"), /must be https/],
      ["data:image/png,notbase64", /base64/],
      [`data:image/png;base64,${Buffer.alloc(300 * 1024).toString("base64")}`, /at most/],
      ["not a reference", /expected a file id/],
      [42, /expected|string/],
    ];
    for (const [image, message] of cases) {
      const res = await createRun({ prompt: "x", image });
      expect(res.status).toBe(400);
      const body = (await res.json()) as {
        error: { code: string; details: { path: string; message: string }[] };
      };
      expect(body.error.code).toBe("VALIDATION_ERROR");
      expect(body.error.details).toEqual([{ path: "input.image", message: expect.stringMatching(message) }]);
    }
    expect(await service.database.db.run.count({ where: { accountId: live.accountId } })).toBe(runsBefore);
  });

  it("when the SDK is given bytes, a Blob or a Node stream for a file field, then it uploads each first and the run uses it", async () => {
    const inputs = [
      testPng(12, 12, "bytes"),
      new Blob([testPng(13, 13, "blob")]),
      Readable.from([testPng(14, 14, "stream")]),
    ];
    const expected = [testPng(12, 12, "bytes"), testPng(13, 13, "blob"), testPng(14, 14, "stream")];
    for (const [i, image] of inputs.entries()) {
      const run = await live.client.run(MODEL, { input: { prompt: "through the sdk", image } });
      const id = (await inputOf(run.run_id)).image as string;
      const file = await live.client.files.get(id);
      expect(file).toMatchObject({ content_type: "image/png", width: 12 + i, sha256: sha256(expected[i]!) });
      expect(cog.fetched.find((f) => f.id === run.run_id)!.bytes).toEqual(expected[i]);
    }
    const uploadedOne = await live.client.files.create(testWav());
    expect((await live.client.files.list({ limit: 100 })).files.map((f) => f.id)).toContain(uploadedOne.id);
    expect(await live.client.files.delete(uploadedOne.id)).toEqual({ id: uploadedOne.id, deleted: true });
    await expect(live.client.files.get(uploadedOne.id)).rejects.toMatchObject({
      status: 404,
      code: "FILE_NOT_FOUND",
    });
  });

  it("when acme/upscale is given an image, then a trained network returns it at twice the size, for its price; a larger image is refused at creation", async () => {
    const account = await service.account(100);
    const file = await uploaded(testPng(40, 30, "a lighthouse at dusk"), account.liveKey);
    const run = await account.client.run("acme/upscale", { input: { image: file.id } });
    const [url] = (run.output as { images: string[] }).images;
    const png = Buffer.from(await (await fetch(url!)).arrayBuffer());
    // PNG's IHDR: width and height after the signature and the chunk's length and type.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([80, 60]);
    expect(run.tokens_charged).toBe(3);
    const big = await uploaded(testPng(300, 300), account.liveKey);
    const refused = await createRun({ image: big.id }, account.liveKey, "acme/upscale");
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toMatch(/at most 65536 pixels/);
    const gif = await createRun(
      {
        image: `data:image/gif;base64,${Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1").toString("base64")}`,
      },
      account.liveKey,
      "acme/upscale",
    );
    expect(gif.status).toBe(400);
    expect(JSON.stringify(await gif.json())).toMatch(/expected image\/png or image\/jpeg, got image\/gif/);
  });

  it("when acme/motion/clip is given a first frame, then the clip starts from it (image to video)", async () => {
    const account = await service.account(100);
    const frame = await uploaded(testPng(64, 36, "a first frame"), account.liveKey);
    const input = { prompt: "a kite", duration_seconds: 1, format: "gif", seed: 7 };
    const fromImage = await account.client.run("acme/motion/clip", {
      input: { ...input, first_frame: frame.id },
    });
    const fromText = await account.client.run("acme/motion/clip", { input });
    const gif = async (run: { output?: unknown }) =>
      Buffer.from(await (await fetch((run.output as { video: string[] }).video[0]!)).arrayBuffer());
    const [a, b] = [await gif(fromImage), await gif(fromText)];
    expect(a.subarray(0, 6).toString("latin1")).toBe("GIF89a");
    expect(a.equals(b)).toBe(false);
    expect(fromImage.tokens_charged).toBe(fromText.tokens_charged);
  });

  it("when the file is deleted before the run executes, then the run fails with INPUT_FILE_UNAVAILABLE and is charged nothing", async () => {
    const account = await service.account(100);
    const key = account.liveKey;
    const file = await uploaded(testPng(8, 8), key);
    // The model's only server has not finished its setup: the run waits for it.
    const starting = await startFakeCog({ health: "STARTING", behaviour: { delayMs: 50 } });
    await seedCogModel(service.database.db, "files/later", [starting.url], { input_schema: IMAGE_TO_IMAGE });
    const res = await createRun({ prompt: "too late", image: file.id }, key, "files/later");
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { run_id: string } };
    expect((await api(`/files/${file.id}`, { method: "DELETE" }, key)).status).toBe(200);
    starting.health = "READY";
    const run = await waitFor(
      async () => {
        const r = await account.client.runs.get(data.run_id);
        return r.status === "FAILED" || r.status === "COMPLETED" ? r : null;
      },
      { what: "the run to end" },
    );
    expect(run).toMatchObject({
      status: "FAILED",
      error: { code: "INPUT_FILE_UNAVAILABLE" },
    });
    const acct = await service.database.db.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(acct).toMatchObject({ balance: 100, reserved: 0 });
    expect(starting.puts).toHaveLength(0);
    await starting.close();
  });
});

// The same file path with the S3 store: uploads go to the bucket, and model servers are handed
// presigned URLs of the bucket itself (the API is not in their way).
describe("input files in an S3-compatible bucket", () => {
  let service: E2EService;
  let s3: TestS3Server;
  let cog: FakeCog;
  let key: string;

  beforeAll(async () => {
    s3 = await startS3Server("runs/outputs/");
    const callbackPort = await freePort();
    service = await startService(s3.env);
    await service.startApi();
    await service.startWorker({
      COG_CALLBACK_URL: `http://127.0.0.1:${callbackPort}`,
      COG_CALLBACK_PORT: String(callbackPort),
      COG_CALLBACK_HOST: "127.0.0.1",
    });
    cog = await startFakeCog({ behaviour: { delayMs: 20 } });
    await seedCogModel(service.database.db, "files/in-bucket", [cog.url], {
      input_schema: {
        type: "object",
        properties: {
          prompt: { type: "string" },
          image: { type: "string", format: "uri", "x-media": "image" },
        },
        required: ["prompt", "image"],
      },
    });
    key = (await service.account(100)).liveKey;
  });
  afterAll(async () => {
    await cog?.close();
    await service?.stop();
    await s3?.close();
  });

  it("when a file is uploaded and used, then it lives in the bucket and the model server downloads a presigned bucket URL", async () => {
    const auth = { authorization: `Bearer ${key}` };
    const png = testPng(20, 20, "in a bucket");
    const res = await fetch(`${service.base}/api/v1/files`, { method: "POST", body: png, headers: auth });
    expect(res.status).toBe(201);
    const { data: file } = (await res.json()) as { data: FileView };
    const content = await fetch(file.url, { headers: auth });
    expect(Buffer.from(await content.arrayBuffer()).equals(png)).toBe(true);

    const created = await fetch(`${service.base}/api/v1/models/files/in-bucket/run`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ input: { prompt: "p", image: file.id } }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { run_id: string } };
    const fetched = await waitFor(async () => cog.fetched.find((f) => f.id === data.run_id), {
      what: "the server to download its input",
    });
    expect(fetched.url.startsWith(`${s3.endpoint}/`)).toBe(true);
    expect(fetched.url).toContain(`.inputs/${file.id}.png`);
    expect(fetched.url).toContain("X-Amz-Signature=");
    expect(fetched.bytes.equals(png)).toBe(true);

    await fetch(`${service.base}/api/v1/files/${file.id}`, { method: "DELETE", headers: auth });
    expect((await fetch(fetched.url)).status).toBe(404);
  });
});
