import { runCommand } from "@svc/cli";
import { openSecret, parseSecretsKey, sealSecret } from "@svc/core";
import type { AnyRun } from "@svc/sdk";
import {
  seedOpenAIModel,
  startFakeOpenAIServer,
  testPng,
  TEST_REDIS_URL,
  waitFor,
  type FakeOpenAIServer,
} from "@svc/testkit";
import { Redis } from "ioredis";
import { createLeasedRunsQueue } from "@svc/queue";
import { startService, type E2EService } from "./service.js";

// OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI) behind the scheduler, through the built
// API and worker: protocol-faithful fakes with a GPU's limits (one piece of work at a time).
describe("OpenAI-style media servers", () => {
  let service: E2EService;
  let images: FakeOpenAIServer;
  let videos: FakeOpenAIServer;
  let speech: FakeOpenAIServer;
  let client: Awaited<ReturnType<E2EService["account"]>>["client"];
  let worker: Awaited<ReturnType<E2EService["startWorker"]>>;
  const KEY = "sk-upstream-secret";

  beforeAll(async () => {
    // A short lock and frequent sweeps: a run whose worker dies is taken over within seconds (from
    // its backstop job, or by the sweeper before that is written).
    service = await startService({
      RUN_LOCK_MS: "2000",
      SCHEDULER_LEASE_MS: "6000",
      SWEEP_INTERVAL_MS: "300",
    });
    await service.startApi();
    worker = await service.startWorker();
    images = await startFakeOpenAIServer({ model: "Qwen/Qwen-Image", apiKey: KEY, unitMs: 100 });
    videos = await startFakeOpenAIServer({ model: "Wan-AI/Wan2.2-T2V", apiKey: KEY, unitMs: 100 });
    speech = await startFakeOpenAIServer({ model: "kokoro", unitMs: 50 });
    const sealed = sealSecret(parseSecretsKey(service.env.SECRETS_KEY!), KEY);
    const { db } = service.database;
    await seedOpenAIModel(db, "oai/image", [images.url], {
      api: "images",
      model: "Qwen/Qwen-Image",
      api_key_enc: sealed,
    });
    await seedOpenAIModel(db, "oai/video", [videos.url], {
      api: "videos",
      model: "Wan-AI/Wan2.2-T2V",
      api_key_enc: sealed,
    });
    await seedOpenAIModel(db, "oai/speech", [speech.url], { api: "speech", model: "kokoro" });
    await seedOpenAIModel(
      db,
      "oai/edit",
      [images.url],
      { api: "images", model: "Qwen/Qwen-Image", api_key_enc: sealed },
      {
        input_schema: {
          type: "object",
          properties: {
            prompt: { type: "string", minLength: 1 },
            image: { type: "string", format: "uri", "x-media": "image" },
          },
          required: ["prompt", "image"],
          additionalProperties: false,
        },
        pricing: { unit: "image", tokens_per_unit: 3 },
      },
    );
    const a = await service.account(10_000);
    client = a.client;
  });
  afterAll(async () => {
    await Promise.all([images, videos, speech].map((s) => s?.close()));
    await service?.stop();
  });

  const ended = (id: string) =>
    waitFor(
      async () => {
        const run: AnyRun = await client.runs.get(id);
        return ["COMPLETED", "FAILED", "CANCELED"].includes(run.status) ? run : null;
      },
      { what: `run ${id} to end` },
    );
  /** A completed run's output files of one kind. */
  const filesOf = (run: AnyRun, kind: "images" | "audio" | "video") =>
    (run as unknown as { output: Record<string, string[]> }).output[kind]!;
  const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

  it("when image, speech and video runs are made, then each server gets OpenAI's request with the model's key and the runs complete with its files", async () => {
    const image = await client.runs.create("oai/image", {
      input: { prompt: "a lighthouse", num_images: 2, image_size: "landscape_4_3" },
    });
    const done = await ended(image.run_id);
    expect(done).toMatchObject({ status: "COMPLETED", tokens_charged: 10 });
    const urls = filesOf(done, "images");
    expect(urls).toHaveLength(2);
    for (const url of urls)
      expect(pngSize(Buffer.from(await (await fetch(url)).arrayBuffer()))).toEqual({
        width: 1024,
        height: 768,
      });
    expect(images.received.at(-1)).toMatchObject({
      path: "/v1/images/generations",
      body: {
        model: "Qwen/Qwen-Image",
        prompt: "a lighthouse",
        n: 2,
        size: "1024x768",
        response_format: "b64_json",
      },
    });

    const voice = await ended(
      (await client.runs.create("oai/speech", { input: { prompt: "a calm sea", format: "wav" } })).run_id,
    );
    expect(voice.status).toBe("COMPLETED");
    expect(speech.received.at(-1)!.body).toMatchObject({
      model: "kokoro",
      input: "a calm sea",
      response_format: "wav",
    });
    const audio = filesOf(voice, "audio")[0]!;
    expect((await fetch(audio)).headers.get("content-type")).toBe("audio/wav");

    const clip = await client.runs.create("oai/video", {
      input: { prompt: "waves", duration_seconds: 3, video_size: "square" },
    });
    const progress: number[] = [];
    for await (const event of client.stream(clip.run_id))
      if (event.type === "progress" && event.progress.completed !== undefined)
        progress.push(event.progress.completed);
    const made = await ended(clip.run_id);
    expect(made).toMatchObject({ status: "COMPLETED", tokens_charged: 12 });
    expect(videos.received.at(-1)!.body).toMatchObject({
      model: "Wan-AI/Wan2.2-T2V",
      prompt: "waves",
      seconds: "3",
      size: "240x240",
    });
    const mp4 = Buffer.from(await (await fetch(filesOf(made, "video")[0]!)).arrayBuffer());
    expect(mp4.equals(videos.video)).toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    expect(Math.max(images.maxConcurrent, videos.maxConcurrent, speech.maxConcurrent)).toBe(1);
  });

  it("when a run has an image input, then the server gets it in images/edits' form", async () => {
    const png = testPng(32, 32, "edit me");
    const upload = await client.files.create(png);
    const run = await ended(
      (await client.runs.create("oai/edit", { input: { prompt: "sharper", image: upload.id } })).run_id,
    );
    expect(run.status).toBe("COMPLETED");
    const sent = images.received.at(-1)!;
    expect(sent).toMatchObject({
      path: "/v1/images/edits",
      body: { model: "Qwen/Qwen-Image", prompt: "sharper", n: "1" },
    });
    expect(sent.files.image!.equals(png)).toBe(true);
  });

  it("when a video run is canceled, then its job is deleted on the server and it is charged what it delivered", async () => {
    const clip = await client.runs.create("oai/video", { input: { prompt: "long", duration_seconds: 10 } });
    await waitFor(async () => ((await client.runs.get(clip.run_id)).status === "EXECUTING" ? true : null));
    await waitFor(async () => (videos.received.some((r) => r.body.prompt === "long") ? true : null));
    await client.runs.cancel(clip.run_id);
    const canceled = await ended(clip.run_id);
    expect(canceled.status).toBe("CANCELED");
    await waitFor(async () => (videos.deleted.length > 0 ? true : null));
    expect((canceled as { tokens_charged: number }).tokens_charged).toBe(0);
  });

  it("when a server goes down, then runs wait QUEUED, and start once it is back", async () => {
    await images.stop();
    // The pool monitor marks it down within a health interval or two.
    await waitFor(async () => ((await client.models.get("oai/image")).capacity === 0 ? true : null), {
      what: "the server's slot to go",
    });
    const run = await client.runs.create("oai/image", { input: { prompt: "patience" } });
    // A window in which nothing may happen: the run must not start while its server is down.
    await new Promise((r) => setTimeout(r, 500));
    expect((await client.runs.get(run.run_id)).status).toBe("QUEUED");
    await images.start();
    expect(await ended(run.run_id)).toMatchObject({ status: "COMPLETED" });
  });

  it("when an operator imports a model from an OpenAI-style server with the CLI, then it runs there with its key, which is stored sealed", async () => {
    const lines: string[] = [];
    const argv = [
      "models",
      "import",
      "--openai",
      `${images.url}/v1`,
      "--model",
      "Qwen/Qwen-Image",
      "--api",
      "images",
    ];
    const run = (extra: string[]) =>
      runCommand(service.database.db, [...argv, ...extra, "--json"], (line) => lines.push(line), {
        API_KEYS_PER_MODE_MAX: 20,
        secretsKey: parseSecretsKey(service.env.SECRETS_KEY!),
      });
    // A wrong key: the server refuses it, and nothing is imported.
    process.env.IMPORT_TEST_KEY = "sk-wrong";
    await expect(
      run(["--id", "you/qwen-image", "--price", "4", "--api-key-env", "IMPORT_TEST_KEY"]),
    ).rejects.toThrow(/could not be reached, or refused the key/);
    await expect(
      run(["--id", "you/qwen-image", "--model", "nope", "--api-key-env", "IMPORT_TEST_KEY"]),
    ).rejects.toThrow();
    process.env.IMPORT_TEST_KEY = KEY;
    await run(["--id", "you/qwen-image", "--price", "4", "--api-key-env", "IMPORT_TEST_KEY"]);
    const printed = lines.at(-1)!;
    expect(printed).not.toContain(KEY);
    expect(printed).not.toContain("api_key_enc");
    const model = await client.models.get("you/qwen-image");
    expect(model).toMatchObject({
      category: "image",
      pricing: { unit: "image", tokens_per_unit: 4, units_from: "num_images" },
    });
    const done = await ended(
      (
        await client.runs.create("you/qwen-image", {
          input: { prompt: "imported", image_size: "portrait_4_3" },
        })
      ).run_id,
    );
    expect(done).toMatchObject({ status: "COMPLETED", tokens_charged: 4 });
    expect(images.received.at(-1)!.body).toMatchObject({
      model: "Qwen/Qwen-Image",
      size: "768x1024",
      prompt: "imported",
    });
  });

  it("when a model has a key, then it is stored sealed and shown nowhere", async () => {
    const model = await service.database.db.model.findUniqueOrThrow({ where: { id: "oai/image" } });
    const runner = model.runner as { api_key_enc: string };
    expect(runner.api_key_enc).not.toContain(KEY);
    expect(openSecret(parseSecretsKey(service.env.SECRETS_KEY!), runner.api_key_enc)).toBe(KEY);
    expect(JSON.stringify(await client.models.get("oai/image"))).not.toContain(runner.api_key_enc);
  });
  it("when the worker executing a run it leased is killed, then another worker takes the run over from its job", async () => {
    const gpu = await startFakeOpenAIServer({ model: "slow-image", unitMs: 1_500 });
    try {
      await seedOpenAIModel(service.database.db, "oai/takeover", [gpu.url], {
        api: "images",
        model: "slow-image",
      });
      const first = await client.runs.create("oai/takeover", { input: { prompt: "first" } });
      const second = await client.runs.create("oai/takeover", { input: { prompt: "second" } });
      // The second run waits for the server; the worker that hears the first one's answer leases
      // it the slot and executes it itself, its request sent at once: its backstop job waits, delayed.
      await waitFor(async () => (gpu.received.some((r) => r.body.prompt === "second") ? true : null), {
        what: "the second run's request",
      });
      expect((await ended(first.run_id)).status).toBe("COMPLETED");
      const redis = new Redis(TEST_REDIS_URL);
      const leased = createLeasedRunsQueue(redis, service.prefix);
      try {
        // Written once the run has executed for a second (BACKSTOP_AFTER_MS): one that ends sooner
        // never writes it.
        await waitFor(
          async () => ((await (await leased.getJob(second.run_id))?.getState()) === "delayed" ? true : null),
          { what: "the second run's job, delayed" },
        );
      } finally {
        await leased.close();
        redis.disconnect();
      }
      worker.child.kill("SIGKILL");
      await worker.exited;
      worker = await service.startWorker();
      // Its job comes due once nobody pushes it back, and the new worker sends the request again
      // (an images request has nothing to re-attach to): completed, charged its one image (5 tokens).
      const run = await ended(second.run_id);
      expect(run).toMatchObject({ status: "COMPLETED", tokens_charged: 5 });
      expect(gpu.received.filter((r) => r.body.prompt === "second")).toHaveLength(2);
    } finally {
      await gpu.close();
    }
  }, 60_000);
  it("when the worker is killed while a video is being made, then the next one follows the server's job: the video is made once", async () => {
    const gpu = await startFakeOpenAIServer({ model: "slow-video", unitMs: 700 });
    try {
      await seedOpenAIModel(service.database.db, "oai/video-takeover", [gpu.url], {
        api: "videos",
        model: "slow-video",
      });
      const clip = await client.runs.create("oai/video-takeover", {
        input: { prompt: "survive", duration_seconds: 5 },
      });
      // Killed once the job's id is kept (a worker dying between the server's answer and that
      // write leaves nothing to follow: the job is made again).
      const redis = new Redis(TEST_REDIS_URL);
      try {
        await waitFor(
          async () => (await redis.get(`${service.prefix}:run-note:openai-video:${clip.run_id}`)) ?? null,
          { what: "the video job's id kept" },
        );
      } finally {
        redis.disconnect();
      }
      worker.child.kill("SIGKILL");
      await worker.exited;
      worker = await service.startWorker();
      const run = await ended(clip.run_id);
      expect(run).toMatchObject({ status: "COMPLETED", tokens_charged: 5 * 4 });
      expect(gpu.received.filter((r) => r.path === "/v1/videos" && r.body.prompt === "survive")).toHaveLength(
        1,
      );
    } finally {
      await gpu.close();
    }
  }, 60_000);
});
