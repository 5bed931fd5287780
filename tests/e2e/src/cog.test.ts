import { cogUploadUrl, parseSecretsKey } from "@svc/core";
import { readdir, stat } from "node:fs/promises";
import { connect } from "node:net";
import { Redis } from "ioredis";
import { runCommand } from "@svc/cli";
import { ledgerTotals, loadCatalogue, seedCatalogue } from "@svc/db";
import { ModelRunError, type AnyRun, type ModelRunClient } from "@svc/sdk";
import {
  freePort,
  seedCogModel,
  stopApps,
  TEST_REDIS_URL,
  waitFor,
  type FakeCog,
  type SpawnedApp,
  localOutputKeys,
  localPath,
} from "@svc/testkit";
import { cogWorkerEnv, fakeCogs, runReaching, startService, type E2EService } from "./service.js";

const IMAGE_MAP = {
  rename: { num_images: "num_outputs" },
  expand: {
    image_size: {
      square_hd: { width: 1024, height: 1024 },
      landscape_16_9: { width: 1024, height: 576 },
      portrait_16_9: { width: 576, height: 1024 },
      landscape_4_3: { width: 1024, height: 768 },
      portrait_4_3: { width: 768, height: 1024 },
    },
  },
};

describe("Cog runner end to end", () => {
  let service: E2EService;
  let worker: SpawnedApp;
  let client: ModelRunClient;
  let accountId: string;
  let callbackPort: number;
  let redis: Redis;

  const workerEnv = (port: number) => ({ ...cogWorkerEnv(port), OUTPUT_MAX_BYTES: String(40 * 1024 * 1024) });

  /** A model with our public image interface, served by the given Cog servers. */
  const cogModel = (id: string, servers: FakeCog[], extra: Record<string, unknown> = {}) =>
    seedCogModel(
      service.database.db,
      id,
      servers.map((s) => s.url),
      { runner: { input_map: IMAGE_MAP }, ...extra },
    );
  const cogs = fakeCogs();
  const fakeCog = cogs.start;
  const create = async (model: string, input: Record<string, unknown>) =>
    (await client.runs.create(model, { input })).run_id;
  const until = (runId: string, statuses: string[]) => runReaching(client, runId, statuses);
  const fetchBytes = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

  beforeAll(async () => {
    callbackPort = await freePort();
    service = await startService();
    await service.startApi();
    worker = await service.startWorker(workerEnv(callbackPort));
    ({ client, accountId } = await service.account(1000));
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await cogs.closeAll();
    redis?.disconnect();
    await service?.stop();
  });

  it("when malformed requests reach the callback server, then each gets a 4xx and the worker keeps serving", async () => {
    const raw = (bytes: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(callbackPort, "127.0.0.1");
        let answer = "";
        socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
        socket.on("error", () => resolve(answer));
        socket.on("close", () => resolve(answer));
        socket.end(Buffer.from(bytes, "latin1"));
      });
    const requests = [
      "POST /cog/predictions/%E0%A4%A?token=x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
      "POST /cog/predictions/%ZZ HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
      "POST //%zz/../cog/predictions/x?token=%ff HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
      "POST http://[::1/cog/predictions/x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
      "POST /cog/predictions/x?token=%E0%A4%A HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "GARBAGE\x00\x01\x02 / HTTP/1.1\r\n\r\n",
      "POST /cog/predictions/x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n{",
    ];
    for (const bytes of requests) {
      const answer = await raw(bytes);
      expect(answer).toMatch(/^HTTP\/1\.1 4\d\d/);
    }
    // Still alive and still serving: a properly signed callback is taken.
    expect(worker.child.exitCode).toBeNull();
    const res = await fetch(`http://127.0.0.1:${callbackPort}/cog/predictions/run_none`, { method: "POST" });
    expect(res.status).toBe(401);
  });

  it("when a Cog model completes, then its outputs are copied to our storage, mapped input reached the model, and units are charged", async () => {
    const cog = await fakeCog();
    await cogModel("cog/sdxl", [cog]);
    const before = (await ledgerTotals(service.database.db, accountId)).cached.balance;
    const runId = await create("cog/sdxl", {
      prompt: "a lighthouse",
      image_size: "landscape_16_9",
      num_images: 2,
    });
    const done = await until(runId, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    expect(done.tokens_charged).toBe(10);
    expect(cog.puts).toEqual([
      {
        id: runId,
        started: true,
        prefer: "respond-async",
        sync: false,
        input: { prompt: "a lighthouse", width: 1024, height: 576, num_outputs: 2 },
      },
    ]);
    expect(done.output!.images).toHaveLength(2);
    for (const url of done.output!.images as string[]) {
      expect(url.startsWith(`${service.base}/files/out_`)).toBe(true);
      const res = await fetch(url);
      expect(res.headers.get("content-type")).toBe("image/png");
      const body = Buffer.from(await res.arrayBuffer());
      expect([body.readUInt32BE(16), body.readUInt32BE(20)]).toEqual([1024, 576]);
    }
    expect((await ledgerTotals(service.database.db, accountId)).cached).toEqual({
      balance: before - 10,
      reserved: 0,
    });
  });

  it("when a prediction's result is stored but its announcement is lost, then the waiting worker still finds it promptly", async () => {
    // The server would call back only after a minute: the result appears in Redis without any
    // message on the channel, as when the subscriber was reconnecting at the time of the publish.
    const cog = await fakeCog({ behaviour: { delayMs: 60_000 } });
    await cogModel("cog/lost-message", [cog]);
    const runId = await create("cog/lost-message", { prompt: "quietly done" });
    await waitFor(async () => cog.puts.some((p) => p.id === runId), { what: "the prediction to start" });
    const png = Buffer.from("89504e470d0a1a0a", "hex");
    await redis.set(
      `${service.prefix}:cog:result:${runId}`,
      JSON.stringify({
        id: runId,
        status: "succeeded",
        output: [`data:image/png;base64,${png.toString("base64")}`],
      }),
      "EX",
      600,
    );
    const done = await waitFor(
      async () => {
        const run: AnyRun = await client.runs.get(runId);
        return run.status === "COMPLETED" ? run : null;
      },
      { what: `run ${runId} to complete from the stored result`, timeoutMs: 15_000 },
    );
    expect(done.output!.images).toHaveLength(1);
  });

  it("when the model returns URLs instead of data URLs, then the files are downloaded into our storage", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 50, outputAsUrl: true } });
    await cogModel("cog/uploads", [cog]);
    const runId = await create("cog/uploads", { prompt: "by url", image_size: "portrait_4_3" });
    const done = await until(runId, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    const [url] = done.output!.images as string[];
    expect(url!.startsWith(`${service.base}/files/out_`)).toBe(true);
    expect(url).toMatch(/\.png$/);
    const file = await fetchBytes(url!);
    expect([file.readUInt32BE(16), file.readUInt32BE(20)]).toEqual([768, 1024]);
  });

  /** A video model (the clip's interface) served by one Cog server. */
  async function cogVideoModel(id: string, cog: FakeCog) {
    const [clip] = (await loadCatalogue()).filter((m) => m.id === "acme/motion/clip");
    await seedCatalogue(service.database.db, [
      {
        ...clip!,
        id,
        name: id,
        highlighted: false,
        runner: {
          kind: "cog",
          servers: [cog.url],
          output: "video",
          concurrency: 1,
          dispatch_attempts: 1,
          health_interval_ms: 1_000,
          request_timeout_ms: 2_000,
          predictions: "async",
          input_map: { rename: {}, expand: {} },
          loras: [],
          lora_cache: 8,
        },
      },
    ]);
  }

  it("when the model returns a 30 MB video by URL, then it is streamed into storage whole, with its type", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 20, videoBytes: 30 * 1024 * 1024 } });
    await cogVideoModel("cog/video", cog);
    const done = await until(await create("cog/video", { prompt: "big", duration_seconds: 2 }), [
      "COMPLETED",
      "FAILED",
    ]);
    expect(done.status).toBe("COMPLETED");
    expect(done.tokens_charged).toBe(8);
    const [url] = done.output!.video as string[];
    expect(url).toMatch(/-0\.mp4$/);
    const file = await stat(localPath(service.env.OUTPUT_DIR!, url!.split("/").slice(-2).join("/")));
    expect(file.size).toBe(30 * 1024 * 1024);
    const head = await fetch(url!, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("video/mp4");
  });

  it("when the model's output is larger than OUTPUT_MAX_BYTES, then the run fails with MODEL_ERROR and nothing is kept", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 20, videoBytes: 41 * 1024 * 1024 } });
    await cogVideoModel("cog/video-huge", cog);
    // Written files, and files being written (in place, under names nobody knows yet).
    const videos = async () =>
      (await readdir(service.env.OUTPUT_DIR!, { recursive: true })).filter((f) => f.endsWith(".mp4")).length;
    const before = await videos();
    const runId = await create("cog/video-huge", { prompt: "too big", duration_seconds: 1 });
    const done = await until(runId, ["COMPLETED", "FAILED"]);
    expect(done).toMatchObject({ status: "FAILED", error: { code: "MODEL_ERROR" } });
    expect(done.error!.message).toMatch(/larger than 41943040 bytes/);
    expect(await videos()).toBe(before);
  });

  it("when the Cog server cancels the prediction itself, then the run ends CANCELED, charged 0", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 50, serverCancels: true } });
    await cogModel("cog/self-cancel", [cog]);
    const runId = await create("cog/self-cancel", { prompt: "p" });
    expect(await until(runId, ["CANCELED"])).toMatchObject({ status: "CANCELED", tokens_charged: 0 });
  });

  it("when the model fails, then the run is FAILED with MODEL_ERROR and Cog's error text, charged 0", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 100, fail: "CUDA out of memory" } });
    await cogModel("cog/broken", [cog]);
    const runId = await create("cog/broken", { prompt: "p" });
    const failed = await until(runId, ["FAILED"]);
    expect(failed.error).toEqual({ code: "MODEL_ERROR", message: "CUDA out of memory" });
    expect((await service.database.db.run.findUniqueOrThrow({ where: { id: runId } })).tokensCharged).toBe(0);
  });

  it("when an executing Cog run is canceled, then the cancel reaches the server's cancel route", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 30_000 } });
    await cogModel("cog/slow", [cog]);
    const runId = await create("cog/slow", { prompt: "p" });
    await waitFor(async () => cog.puts.length === 1);
    await client.runs.cancel(runId);
    await waitFor(async () => cog.cancels.includes(runId), { what: "the Cog cancel call" });
    expect(cog.predictions.get(runId)?.status).toBe("canceled");
    expect((await until(runId, ["CANCELED"])).tokens_charged).toBe(0);
  });

  describe("a model that yields its images one by one", () => {
    /** Resolves once the run's event stream has shown the model's first output. */
    const outputShown = async (runId: string) => {
      for await (const event of client.stream(runId))
        if (event.type === "progress" && event.progress.output) return event.progress.output;
      throw new Error(`run ${runId} ended before showing an output`);
    };
    const yieldingModel = async (id: string) => {
      const cog = await fakeCog({ behaviour: { delayMs: 30_000, outputAsUrl: true } });
      await cogModel(id, [cog]);
      return cog;
    };
    const charged = async (runId: string) =>
      (await service.database.db.ledgerEntry.findMany({ where: { runId } }))
        .map((e) => [e.kind, e.amount])
        .sort();

    it("when the run is canceled after the first of 2 images was shown, then it is charged for that image alone", async () => {
      const cog = await yieldingModel("cog/yields");
      const runId = await create("cog/yields", { prompt: "p", num_images: 2 });
      await waitFor(async () => cog.puts.length === 1, { what: "the prediction" });
      const shown = outputShown(runId);
      expect(await cog.yieldOutputs(runId, 1)).toBe(200);
      // Shown as a file of our store, never as the model server's own URL.
      const { images } = (await shown) as { images: string[] };
      expect(images).toHaveLength(1);
      expect(images[0]!.startsWith(`${service.base}/files/out_`)).toBe(true);
      const file = await fetch(images[0]!);
      expect(file.headers.get("content-type")).toBe("image/png");
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe("PNG");
      await client.runs.cancel(runId);
      expect(await until(runId, ["CANCELED"])).toMatchObject({ tokens_charged: 5 });
      // What was shown, and paid for, stays the client's.
      expect((await fetch(images[0]!)).status).toBe(200);
      expect(await charged(runId)).toEqual([
        ["CHARGE", 5],
        ["RELEASE", 5],
        ["RESERVE", 10],
      ]);
    });

    it("when cancels are swept around a yielded image, then the files kept are exactly the images charged, all in our store", async () => {
      const cog = await yieldingModel("cog/yields-swept");
      const dir = service.env.OUTPUT_DIR!;
      /** Every output file under the store, as its key. */
      const files = async () => new Set(await localOutputKeys(dir));
      for (const afterMs of [0, 1, 2, 4, 8, 16, 32]) {
        const before = await files();
        const puts = cog.puts.length;
        const runId = await create("cog/yields-swept", { prompt: `sweep ${afterMs}`, num_images: 3 });
        await waitFor(async () => cog.puts.length === puts + 1, { what: "the prediction" });
        const shown = outputShown(runId);
        expect(await cog.yieldOutputs(runId, 1)).toBe(200);
        await shown;
        // The second image and the cancel race each other.
        const second = cog.yieldOutputs(runId, 2);
        await new Promise((r) => setTimeout(r, afterMs));
        await client.runs.cancel(runId);
        await second;
        const ended = await until(runId, ["CANCELED"]);
        const added = async () => [...(await files())].filter((f) => !before.has(f));
        await waitFor(async () => ((await added()).length === ended.tokens_charged! / 5 ? true : null), {
          what: `run ${runId} (cancel after ${afterMs} ms) to keep ${ended.tokens_charged! / 5} files`,
          timeoutMs: 5_000,
        });
        for (const file of await added())
          expect((await fetch(`${service.base}/files/${file}`)).status).toBe(200);
      }
    });

    it("when Cancel-After ends the run after the first image was shown, then it is charged for that image alone", async () => {
      const cog = await yieldingModel("cog/yields-deadline");
      const { run_id: runId } = await client.runs.create(
        "cog/yields-deadline",
        { input: { prompt: "p", num_images: 2 } },
        // Long enough for the first image to be shown first on a loaded machine.
        { cancelAfter: "8s" },
      );
      await waitFor(async () => cog.puts.length === 1, { what: "the prediction" });
      const shown = outputShown(runId);
      expect(await cog.yieldOutputs(runId, 1)).toBe(200);
      await shown;
      expect(await until(runId, ["CANCELED"])).toMatchObject({
        tokens_charged: 5,
        error: { code: "CANCEL_AFTER" },
      });
      await waitFor(async () => cog.cancels.includes(runId), { what: "the Cog cancel call" });
    });

    it("when the server cancels the prediction after the first image was shown, then the run is charged for it", async () => {
      const cog = await yieldingModel("cog/yields-then-stops");
      const runId = await create("cog/yields-then-stops", { prompt: "p", num_images: 2 });
      await waitFor(async () => cog.puts.length === 1, { what: "the prediction" });
      const shown = outputShown(runId);
      expect(await cog.yieldOutputs(runId, 1)).toBe(200);
      await shown;
      cog.behaviour.serverCancels = true;
      cog.finish(runId);
      expect(await until(runId, ["CANCELED"])).toMatchObject({ tokens_charged: 5 });
    });
  });

  it("when a run is canceled while its outputs are being copied, then the files copied so far are deleted and nothing is charged", async () => {
    const cog = await fakeCog({
      behaviour: { delayMs: 30_000, outputAsUrl: true, laterOutputsDelayMs: 5_000 },
    });
    await cogModel("cog/slow-copy", [cog]);
    const runId = await create("cog/slow-copy", { prompt: "p", num_images: 2 });
    await waitFor(async () => cog.puts.length === 1, { what: "the prediction" });
    const dir = service.env.OUTPUT_DIR!;
    const before = new Set(await localOutputKeys(dir));
    /** The files this run's execution wrote. */
    const copied = async () => (await localOutputKeys(dir)).filter((k) => !before.has(k));
    cog.finish(runId);
    // The first image is copied; the second is on its way.
    await waitFor(async () => ((await copied()).length === 1 ? true : null), { what: "the first copy" });
    await client.runs.cancel(runId);
    expect(await until(runId, ["CANCELED"])).toMatchObject({ tokens_charged: 0 });
    await waitFor(async () => ((await copied()).length === 0 ? true : null), {
      what: "the copied file deleted",
      timeoutMs: 5_000,
    });
  });

  it.each(["async", "sync"])(
    "when Cog runs with --upload-url, then its files are PUT to the workers and its output is our URL, never base64 in a webhook (%s predictions)",
    async (predictions) => {
      const secretsKey = parseSecretsKey(service.env.SECRETS_KEY!);
      const uploadUrl = cogUploadUrl(`http://127.0.0.1:${callbackPort}`, secretsKey);
      const cog = await fakeCog({ behaviour: { delayMs: 20, imageSide: 32 }, uploadUrl });
      await cogModel(`cog/upload-url-${predictions}`, [cog], {
        runner: { input_map: IMAGE_MAP, predictions },
      });
      const run = await until(
        await create(`cog/upload-url-${predictions}`, { prompt: "uploaded", num_images: 2 }),
        ["COMPLETED"],
      );
      const urls = (run as unknown as { output: { images: string[] } }).output.images;
      expect(cog.uploads.map((u) => u.status)).toEqual([201, 201]);
      expect(urls).toEqual(cog.uploads.map((u) => u.location));
      for (const url of urls) expect(url.startsWith(`${service.base}/files/out_`)).toBe(true);
      const png = Buffer.from(await (await fetch(urls[0]!)).arrayBuffer());
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      // Without the installation's token, nothing is taken.
      const refused = await fetch(uploadUrl.replace(/uploads\/[0-9a-f]{8}/, "uploads/00000000") + "x.png", {
        method: "PUT",
        body: "x",
      });
      expect(refused.status).toBe(401);
      expect(
        await (
          await fetch(`${uploadUrl}..%2F..%2Fetc`, { method: "PUT", body: "x" })
        ).status,
      ).toBeLessThan(500);
    },
  );

  it.each(["async", "sync"])(
    "when Cog refuses an input as its schema does (422), then the run fails INVALID_INPUT with Cog's words, charged nothing (%s predictions)",
    async (predictions) => {
      const cog = await fakeCog({ behaviour: { delayMs: 20 } });
      // Our schema is looser than the model's own: a count given as text reaches Cog, which refuses it.
      await seedCogModel(service.database.db, `cog/strict-${predictions}`, [cog.url], {
        runner: { predictions },
        input_schema: {
          type: "object",
          properties: { prompt: { type: "string" }, num_outputs: { type: "string" } },
          required: ["prompt"],
          additionalProperties: false,
        },
      });
      const run = await until(
        await create(`cog/strict-${predictions}`, { prompt: "p", num_outputs: "two" }),
        ["FAILED"],
      );
      expect(run).toMatchObject({ status: "FAILED", error: { code: "INVALID_INPUT" } });
      expect((run as { error: { message: string } }).error.message).toMatch(
        /Input should be a valid integer/,
      );
      const stored = await service.database.db.run.findUniqueOrThrow({ where: { id: run.run_id } });
      expect(stored.tokensCharged).toBe(0);
    },
  );

  it("when the only server is STARTING or BUSY, then it gets no work and the run waits until it is READY", async () => {
    const cog = await fakeCog({ health: "STARTING", behaviour: { delayMs: 50 } });
    await cogModel("cog/warming", [cog]);
    const runId = await create("cog/warming", { prompt: "p" });
    await waitFor(async () => cog.healthChecks >= 3, { what: "health checks" });
    cog.health = "BUSY";
    const checks = cog.healthChecks;
    await waitFor(async () => cog.healthChecks >= checks + 2, { what: "more health checks" });
    expect(cog.puts).toEqual([]);
    expect((await service.database.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe(
      "EXECUTING",
    );
    cog.health = "READY";
    expect((await until(runId, ["COMPLETED"])).tokens_charged).toBe(5);
    expect(cog.puts).toHaveLength(1);
  });

  it("when a server answers 409 busy, then the run waits for a slot and both runs complete once", async () => {
    const cog = await fakeCog({ concurrency: 1, reportsBusy: false, behaviour: { delayMs: 400 } });
    // This process believes the server takes 2 at once; the server says otherwise with 409.
    await cogModel("cog/overbooked", [cog]);
    const model = await service.database.db.model.findUniqueOrThrow({ where: { id: "cog/overbooked" } });
    await service.database.db.model.update({
      where: { id: model.id },
      data: { runner: { ...(model.runner as object), concurrency: 2 } },
    });
    const [a, b] = await Promise.all([
      create("cog/overbooked", { prompt: "a" }),
      create("cog/overbooked", { prompt: "b" }),
    ]);
    const done = await Promise.all([until(a, ["COMPLETED", "FAILED"]), until(b, ["COMPLETED", "FAILED"])]);
    expect(done.map((r) => r.status)).toEqual(["COMPLETED", "COMPLETED"]);
    expect(cog.conflicts).toBeGreaterThan(0);
    expect(
      cog.puts
        .filter((p) => p.started)
        .map((p) => p.id)
        .sort(),
    ).toEqual([a, b].sort());
  });

  it.each(["async", "sync"])(
    "when the server dies mid-run, then the run is sent to another server and charged once (%s predictions)",
    async (predictions) => {
      const servers = [
        await fakeCog({ behaviour: { delayMs: 30_000 } }),
        await fakeCog({ behaviour: { delayMs: 30_000 } }),
      ];
      await cogModel(`cog/ha-${predictions}`, servers, { runner: { input_map: IMAGE_MAP, predictions } });
      const runId = await create(`cog/ha-${predictions}`, { prompt: "survive" });
      // The scheduler leased it a slot on either server: that one dies, the other one finishes it.
      const first = await waitFor(async () => servers.find((s) => s.puts.length === 1));
      const second = servers.find((s) => s !== first)!;
      second.behaviour.delayMs = 100;
      await first.kill();
      const done = await until(runId, ["COMPLETED", "FAILED"]);
      expect(done.status).toBe("COMPLETED");
      expect(second.puts.map((p) => p.id)).toEqual([runId]);
      expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
      expect(worker.lines.some((l) => l.message === "cog server unavailable" && l.server === first.url)).toBe(
        true,
      );
    },
  );

  it("when every server of a model is gone, then the run ends FAILED rather than stuck, charged 0", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 30_000 } });
    await cogModel("cog/doomed", [cog], { execution_timeout_ms: 3_000 });
    const runId = await create("cog/doomed", { prompt: "p" });
    await waitFor(async () => cog.puts.length === 1);
    await cog.kill();
    const failed = await until(runId, ["FAILED"]);
    expect(["MODEL_ERROR", "TIMEOUT"]).toContain(failed.error!.code);
    expect((await service.database.db.run.findUniqueOrThrow({ where: { id: runId } })).tokensCharged).toBe(0);
  });

  it("when the worker dies mid-run, even before it heard the prediction started, then the next worker re-attaches to it instead of starting it again", async () => {
    // It runs until the test ends it, after the second worker has re-attached (however long a
    // loaded machine takes to get there). The worker dies while the PUT that started it is
    // still unanswered: the narrowest window, where the server it chose must already be known.
    const cog = await fakeCog({ behaviour: { delayMs: 600_000, startReplyDelayMs: 60_000 } });
    await cogModel("cog/reattach", [cog]);
    const env = workerEnv((callbackPort = await freePort()));
    await stopApps(worker);
    const doomed = await service.startWorker(env);
    const runId = await create("cog/reattach", { prompt: "p" });
    await waitFor(async () => cog.puts.length === 1);
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    worker = await service.startWorker(env);
    await waitFor(async () => cog.puts.length === 2, {
      timeoutMs: 40_000,
      what: "the second worker to re-attach",
    });
    cog.finish(runId);
    const done = await until(runId, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    expect(cog.puts.map((p) => p.started)).toEqual([true, false]);
    expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
  });

  it("when a model is imported from a Cog server's openapi.json, then run input is validated against the server's schema", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 50 } });
    const lines: string[] = [];
    await runCommand(
      service.database.db,
      ["models", "import", "--cog", cog.url, "--id", "cog/imported", "--price", "3"],
      (l) => lines.push(l),
      { API_KEYS_PER_MODE_MAX: 20 },
    );
    expect(lines[0]).toBe("imported cog/imported");
    const model = await client.models.get("cog/imported");
    expect(model.input_schema).toHaveProperty("properties.scheduler");
    expect((model.input_schema.properties as Record<string, unknown>).scheduler).toMatchObject({
      enum: ["DDIM", "K_EULER"],
      default: "DDIM",
    });
    expect(model.pricing).toMatchObject({ tokens_per_unit: 3, units_from: "num_outputs" });
    const bad = await client.runs
      .create("cog/imported", { input: { prompt: "p", width: 4096, scheduler: "PLMS" } })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ModelRunError);
    expect((bad as ModelRunError).status).toBe(400);
    expect((bad as ModelRunError).details!.map((d) => d.path).sort()).toEqual([
      "input.scheduler",
      "input.width",
    ]);
    const runId = await create("cog/imported", { prompt: "fine", width: 128, height: 64, num_outputs: 1 });
    expect((await until(runId, ["COMPLETED"])).tokens_charged).toBe(3);
    expect(cog.puts[0]!.input).toEqual({
      prompt: "fine",
      width: 128,
      height: 64,
      num_outputs: 1,
      scheduler: "DDIM",
    });
  });
});
