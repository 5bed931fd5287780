import { createOpenAI } from "@ai-sdk/openai";
import { probeMedia, rawHttp, testPng, waitFor } from "@svc/testkit";
import { generateImage } from "ai";
import OpenAI, { toFile } from "openai";
import { limitedKey, startService, type E2EService } from "./service.js";

// OpenAI's official client (openai@7.59.0, pinned) and the Vercel AI SDK (ai + @ai-sdk/openai)
// against the built API and worker at /openai/v1: images, videos and speech are runs of our
// models, charged, budgeted and allowed as through our own API.
describe("OpenAI's client", () => {
  let service: E2EService;
  let accountId: string;
  let liveKey: string;
  let openai: OpenAI;
  const client = (apiKey: string, maxRetries = 0) =>
    new OpenAI({ apiKey, baseURL: `${service.base}/openai/v1`, maxRetries });
  const balance = async () =>
    (await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } })).balance;
  const pngSize = (bytes: Buffer) => {
    expect(bytes.subarray(1, 4).toString()).toBe("PNG");
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  };
  /** The typed error a call raised. */
  const raised = (call: Promise<unknown>) =>
    call.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );

  beforeAll(async () => {
    service = await startService({ TEST_RUNS_PER_DAY: "3", SYNC_WAIT_MAX_SECONDS: "5" });
    await service.startApi();
    await service.startWorker();
    const a = await service.account(1_000);
    accountId = a.accountId;
    liveKey = a.liveKey;
    openai = client(liveKey);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("when models are listed, then they are our catalogue's, by id", async () => {
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(["acme/pixel-hq", "acme/pixel/fast", "acme/motion/clip"]));
    expect(await openai.models.retrieve("acme/pixel/fast")).toMatchObject({
      id: "acme/pixel/fast",
      object: "model",
      owned_by: "acme",
    });
  });

  it("when images are generated, then b64_json decodes to PNGs of the asked size, url serves them, and usage is the charge", async () => {
    const before = await balance();
    const { data: b64, response } = await openai.images
      .generate({
        model: "test/instant",
        prompt: "a lighthouse",
        n: 2,
        size: "1024x576",
        response_format: "b64_json",
      })
      .withResponse();
    const answer = b64;
    expect(answer.data).toHaveLength(2);
    for (const image of answer.data!)
      expect(pngSize(Buffer.from(image.b64_json!, "base64"))).toEqual({ width: 1024, height: 576 });
    // test/instant: 5 tokens an image.
    expect(answer.usage).toMatchObject({ output_tokens: 10, total_tokens: 10 });
    expect(response.headers.get("x-tokens-charged")).toBe("10");
    expect(before - (await balance())).toBe(10);

    const byUrl = await openai.images.generate({ model: "test/instant", prompt: "by url", size: "768x1024" });
    const res = await fetch(byUrl.data![0]!.url!);
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 768, height: 1024 });
  });

  it("when images are streamed, then each image comes as a partial image in order, then the completed event with usage", async () => {
    const stream = await openai.images.generate({
      model: "test/steps",
      prompt: "streamed",
      n: 3,
      stream: true,
      partial_images: 3,
    });
    const events: { type: string; partial_image_index?: number; b64_json: string; usage?: unknown }[] = [];
    for await (const event of stream) events.push(event as never);
    expect(events.map((e) => `${e.type}${e.partial_image_index ?? ""}`)).toEqual([
      "image_generation.partial_image0",
      "image_generation.partial_image1",
      "image_generation.partial_image2",
      "image_generation.completed",
    ]);
    for (const e of events)
      expect(pngSize(Buffer.from(e.b64_json, "base64"))).toEqual({ width: 1024, height: 1024 });
    expect(events.at(-1)!.usage).toMatchObject({ output_tokens: 15 });
  });

  it("when an image is edited, then the form's image reaches the model's image field", async () => {
    const edited = await openai.images.edit({
      model: "acme/upscale",
      image: await toFile(testPng(48, 32), "photo.png", { type: "image/png" }),
      prompt: "sharper",
      response_format: "b64_json",
    });
    expect(pngSize(Buffer.from(edited.data![0]!.b64_json!, "base64"))).toEqual({ width: 96, height: 64 });
    expect(edited.usage).toMatchObject({ output_tokens: 3 });
  });

  it("when a video is made, then it is a job to retrieve until completed, whose content is an MP4", async () => {
    const video = await openai.videos.create({
      model: "acme/motion/clip" as never,
      prompt: "waves at dusk",
      seconds: "2" as never,
      size: "320x180" as never,
    });
    expect(video).toMatchObject({
      object: "video",
      status: "queued",
      progress: 0,
      seconds: "2",
      size: "320x180",
    });
    let current = video;
    const seen = new Set<string>();
    while (current.status === "queued" || current.status === "in_progress") {
      seen.add(current.status);
      await new Promise((r) => setTimeout(r, 100));
      current = await openai.videos.retrieve(current.id);
    }
    expect(current).toMatchObject({ id: video.id, status: "completed", progress: 100, error: null });
    const content = await openai.videos.downloadContent(video.id);
    // The testkit's own ffprobe (an npm package), never the machine's.
    const probed = await probeMedia(Buffer.from(await content.arrayBuffer()));
    expect(probed.format).toMatch(/mp4/);
    expect(probed.seconds).toBeCloseTo(2, 0);
    expect(probed.streams[0]).toMatchObject({ width: 320, height: 180 });

    const listed = await openai.videos.list();
    expect(listed.data.map((v) => v.id)).toContain(video.id);
    expect(await openai.videos.delete(video.id)).toMatchObject({ id: video.id, deleted: true });
    // Its own file went with it.
    expect((await raised(openai.videos.downloadContent(video.id))).status).toBe(410);
  });

  it("when a run of another account echoes one of our output URLs, then the video routes neither serve nor delete that file", async () => {
    // A's image, at its output URL.
    const image = await openai.images.generate({ model: "test/instant", prompt: "mine" });
    const url = image.data![0]!.url!;
    expect((await fetch(url)).status).toBe(200);
    // B (a free test key) runs the echo with A's URL as its prompt: the URL is in its output.
    const b = await service.account(0);
    const echoed = await fetch(`${service.base}/api/v1/models/acme/echo/run`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${b.testKey}`,
        "content-type": "application/json",
        prefer: "wait=10",
      },
      body: JSON.stringify({ input: { prompt: url } }),
    });
    const echo = ((await echoed.json()) as { data: { run_id: string; status: string; output: unknown } })
      .data;
    expect(echo.status).toBe("COMPLETED");
    expect(JSON.stringify(echo.output)).toContain(url);
    // The echo is not a video, and the file is not its own: 404 for both, and A's file stays.
    const bClient = client(b.testKey);
    expect((await raised(bClient.videos.downloadContent(echo.run_id))).status).toBe(404);
    expect((await raised(bClient.videos.delete(echo.run_id))).status).toBe(404);
    expect((await raised(bClient.videos.retrieve(echo.run_id))).status).toBe(404);
    expect((await fetch(url)).status).toBe(200);
  });

  it("when speech is made, then the audio model's file comes back in the asked format", async () => {
    const speech = await openai.audio.speech.create({
      model: "acme/voice/tone",
      input: "a calm sea",
      voice: "alloy",
      response_format: "mp3",
    });
    expect(speech.headers.get("content-type")).toBe("audio/mpeg");
    expect(speech.headers.get("x-tokens-charged")).toBe("5");
    const bytes = Buffer.from(await speech.arrayBuffer());
    // An MP3: an ID3 tag or a frame's sync word.
    expect(
      bytes.subarray(0, 3).toString() === "ID3" || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0),
    ).toBe(true);
  });

  it("when the client leaves, or the wait runs out, then the run is canceled and charged what it delivered", async () => {
    const leaving = new AbortController();
    const call = openai.images.generate(
      { model: "test/slow", prompt: "left behind" },
      { signal: leaving.signal },
    );
    call.catch(() => {});
    const run = await waitFor(() =>
      service.database.db.run.findFirst({
        where: { accountId, input: { path: ["prompt"], equals: "left behind" } },
      }),
    );
    leaving.abort();
    await waitFor(async () => {
      const now = await service.database.db.run.findUniqueOrThrow({ where: { id: run.id } });
      return now.status === "CANCELED" ? now : null;
    });

    // test/slow: 3 s an image; two images outlast SYNC_WAIT_MAX_SECONDS (5 s): the first is charged.
    const timedOut = await raised(openai.images.generate({ model: "test/slow", prompt: "too slow", n: 2 }));
    expect(timedOut).toBeInstanceOf(OpenAI.InternalServerError);
    expect(timedOut).toMatchObject({ status: 504, code: "wait_timeout" });
    const slow = await service.database.db.run.findFirstOrThrow({
      where: { accountId, input: { path: ["prompt"], equals: "too slow" } },
    });
    expect(slow).toMatchObject({ status: "CANCELED", tokensCharged: 5 });
  }, 30_000);

  it("when a form is cut short, malformed, of unknown files or abandoned, then it is OpenAI's 400 (or nothing) and the API keeps serving", async () => {
    const port = Number(new URL(service.base).port);
    const raw = (bytes: Buffer | string, hangUpAfterMs?: number) => rawHttp(port, bytes, hangUpAfterMs);
    const head = (path: string, headers: string) =>
      `POST /openai/v1${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${liveKey}\r\n${headers}\r\n`;
    const form = (...parts: string[]) =>
      Buffer.from(parts.map((p) => `--XYZ\r\n${p}\r\n`).join("") + "--XYZ--\r\n");
    const field = (name: string, value: string) =>
      `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
    const multipart = (path: string, body: Buffer) =>
      raw(
        Buffer.concat([
          Buffer.from(
            head(
              path,
              `Content-Type: multipart/form-data; boundary=XYZ\r\nContent-Length: ${body.length}\r\n`,
            ),
          ),
          body,
        ]),
      );
    const png = testPng(8, 8);
    const filePart = (name: string) =>
      Buffer.concat([
        Buffer.from(`--XYZ\r\nContent-Disposition: form-data; name="${name}"; filename="a.png"\r\n\r\n`),
        png,
      ]);

    const openaiError = (answer: string) =>
      JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as {
        error: { param: string | null; type: string };
      };
    const noBoundary = await raw(
      head("/images/edits", "Content-Type: multipart/form-data\r\nContent-Length: 5\r\n") + "hello",
    );
    expect(noBoundary).toMatch(/^HTTP\/1\.1 400 [\s\S]*boundary/);
    expect(openaiError(noBoundary).error.type).toBe("invalid_request_error");
    // A file under a name the route does not take.
    const stray = await multipart(
      "/videos",
      Buffer.concat([filePart("video"), Buffer.from("\r\n--XYZ--\r\n")]),
    );
    expect(stray).toMatch(/^HTTP\/1\.1 400 [\s\S]*not taken here/);
    // A field past its limit, and a form without its required fields.
    expect(await multipart("/videos", form(field("prompt", "x".repeat(70 * 1024))))).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    const missing = await multipart("/videos", form(field("prompt", "waves")));
    expect(openaiError(missing).error.param).toBe("model");
    // A form whose body ends before its closing boundary.
    const cut = Buffer.concat([filePart("image")]);
    expect(
      await raw(
        Buffer.concat([
          Buffer.from(
            head(
              "/images/edits",
              "Content-Type: multipart/form-data; boundary=XYZ\r\nTransfer-Encoding: chunked\r\n",
            ),
          ),
          Buffer.from(`${cut.length.toString(16)}\r\n`),
          cut,
          Buffer.from("\r\n0\r\n\r\n"),
        ]),
      ),
    ).toMatch(/^HTTP\/1\.1 400 /);
    // A client gone halfway through its file.
    await raw(
      Buffer.concat([
        Buffer.from(
          head(
            "/images/edits",
            "Content-Type: multipart/form-data; boundary=XYZ\r\nContent-Length: 100000\r\n",
          ),
        ),
        filePart("image"),
      ]),
      200,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await openai.models.retrieve("acme/upscale")).id).toBe("acme/upscale");
  });

  it("when the Vercel AI SDK generates an image through @ai-sdk/openai, then it gets the PNG", async () => {
    const provider = createOpenAI({ apiKey: liveKey, baseURL: `${service.base}/openai/v1` });
    const { image } = await generateImage({
      model: provider.image("test/instant"),
      prompt: "a fox",
      size: "1024x768",
    });
    expect(pngSize(Buffer.from(image.uint8Array))).toEqual({ width: 1024, height: 768 });
  });

  it("when requests are refused, then the client raises each typed error", async () => {
    const badSize = await raised(
      openai.images.generate({ model: "test/instant", prompt: "x", size: "512x512" }),
    );
    expect(badSize).toBeInstanceOf(OpenAI.BadRequestError);
    expect(badSize).toMatchObject({ status: 400, param: "size" });
    expect(badSize.message).toMatch(/1024x1024, 1024x576, 576x1024, 1024x768, 768x1024/);
    const tooMany = await raised(openai.images.generate({ model: "test/instant", prompt: "x", n: 9 }));
    expect(tooMany).toMatchObject({ status: 400, param: "n" });
    expect(await raised(client("svc_live_nope").models.list())).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(await raised(openai.images.generate({ model: "acme/nothing", prompt: "x" }))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const allowListKey = await limitedKey(service.database.db, accountId, "clips", [
      "--models",
      "acme/motion/clip",
    ]);
    const onlyClips = client(allowListKey.key);
    expect(await raised(onlyClips.images.generate({ model: "test/instant", prompt: "x" }))).toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    );
    // Out of tokens: OpenAI's insufficient_quota, a 429 its client is told not to retry.
    const poor = await service.account(1);
    const broke = await raised(
      client(poor.liveKey, 2).images.generate({ model: "test/instant", prompt: "x" }),
    );
    expect(broke).toBeInstanceOf(OpenAI.RateLimitError);
    expect(broke).toMatchObject({ status: 429, code: "insufficient_quota" });
    // Test keys run for free, up to the account's test runs of the day, then 429 with Retry-After.
    const tester = await service.account(0);
    const free = client(tester.testKey);
    for (let i = 0; i < 3; i++) await free.images.generate({ model: "test/instant", prompt: `free ${i}` });
    const quota = await raised(free.images.generate({ model: "test/instant", prompt: "one more" }));
    expect(quota).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number(quota.headers?.get("retry-after"))).toBeGreaterThan(0);
    const cappedKey = await limitedKey(service.database.db, accountId, "capped", ["--budget", "5/day"]);
    const cappedClient = client(cappedKey.key);
    await cappedClient.images.generate({ model: "test/instant", prompt: "within" });
    expect(
      await raised(cappedClient.images.generate({ model: "test/instant", prompt: "over" })),
    ).toMatchObject({
      status: 429,
      code: "insufficient_quota",
    });
  });
});
