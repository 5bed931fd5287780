import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import OpenAI from "openai";
import Replicate from "replicate";
import { runCommand } from "@svc/cli";
import { writeSafetensors } from "@svc/core";
import {
  COMFY_TXT2IMG,
  freePort,
  loraModelInput,
  seedComfyModel,
  startFakeComfyUI,
  seedCogModel,
  startFakeCog,
  startHttpsReceiver,
  testPng,
  waitFor,
  type FakeCog,
  type FakeComfyUI,
  type HttpsReceiver,
} from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Personal weights (issue #60) against the built API: safetensors only, checked before anything is
// kept, uploaded or fetched, the account's and the mode's alone, within a cap, deleted with their bytes.
describe("personal weights", () => {
  let service: E2EService;
  let origin: HttpsReceiver;
  let cog: FakeCog;
  let comfy: FakeComfyUI;
  let live: string;
  let test: string;
  let other: string;
  let metricsPort: number;

  beforeAll(async () => {
    service = await startService({ WEIGHTS_MAX_BYTES: String(64 * 1024), WEIGHTS_PER_ACCOUNT: "3" });
    await service.startApi();
    const callbackPort = await freePort();
    metricsPort = await freePort();
    await service.startWorker({
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: "127.0.0.1",
      COG_CALLBACK_URL: `http://127.0.0.1:${callbackPort}`,
      COG_CALLBACK_PORT: String(callbackPort),
      COG_CALLBACK_HOST: "127.0.0.1",
    });
    cog = await startFakeCog({
      behaviour: {
        delayMs: 20,
        loraFields: ["lora_weights", "extra_lora"],
        loras: { size: 2, msPerMiB: 30 },
      },
    });
    comfy = await startFakeComfyUI();
    // A ComfyUI workflow with two chained "Load LoRA from URL" nodes as its LoRA slots.
    await seedComfyModel(service.database.db, "lora/comfy", [comfy.url], {
      ...COMFY_TXT2IMG,
      workflow: {
        ...COMFY_TXT2IMG.workflow,
        "20": {
          class_type: "LoadLoraFromURL",
          inputs: { model: ["4", 0], clip: ["4", 1], url: "", strength_model: 1, strength_clip: 1 },
        },
        "21": {
          class_type: "LoadLoraFromURL",
          inputs: { model: ["20", 0], clip: ["20", 1], url: "", strength_model: 1, strength_clip: 1 },
        },
      },
      loras: ["20", "21"].map((node) => ({
        node,
        url: "url",
        strength: "strength_model",
        strength_clip: "strength_clip",
      })),
    });
    // A cog-flux style model: two LoRA slots, each a URL and a scale among its inputs.
    await seedCogModel(service.database.db, "lora/flux", [cog.url], {
      input_schema: loraModelInput(),
      runner: {
        loras: [
          { url: "lora_weights", scale: "lora_scale" },
          { url: "extra_lora", scale: "extra_lora_scale" },
        ],
      },
    });
    origin = await startHttpsReceiver();
    const a = await service.account(1000);
    live = a.liveKey;
    test = a.testKey;
    other = (await service.account(1000)).liveKey;
  });
  afterAll(async () => {
    await comfy?.close();
    await cog?.close();
    await origin?.close();
    await service?.stop();
  });

  const f32 = (n: number) => new Uint8Array(new Float32Array(n).fill(0.5).buffer);
  const lora = (rank = 4) =>
    writeSafetensors(
      [
        { name: "body.0.lora_down.weight", dtype: "F32", shape: [rank, 8], data: f32(rank * 8) },
        { name: "body.0.lora_up.weight", dtype: "F32", shape: [8, rank], data: f32(8 * rank) },
      ],
      { ss_base_model_version: "rdn_x2" },
    );
  const api = (path: string, init: RequestInit = {}, key = live) =>
    fetch(`${service.base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
    });
  const upload = (
    bytes: Uint8Array,
    filename = "style.safetensors",
    key = live,
    fields: Record<string, string> = {},
  ) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set("file", new Blob([bytes]), filename);
    return api("/weights", { method: "POST", body: form }, key);
  };
  const stored = async () => readdir(join(service.env.OUTPUT_DIR!, ".weights")).catch(() => [] as string[]);
  type RunView = { status: string; output?: { images: string[] }; error?: { code: string } };
  /** The run, once it has ended: its view and its id. */
  const endedRun = (runId: string, key = live) =>
    waitFor(
      async () => {
        const r = (await (await api(`/runs/${runId}`, {}, key)).json()) as { data: RunView };
        return ["COMPLETED", "FAILED", "CANCELED"].includes(r.data.status) ? { ...r.data, runId } : null;
      },
      { what: `run ${runId} to end` },
    );
  /** The run a creation answered (201), once it has ended. */
  const ended = async (res: Response, key = live) => {
    expect(res.status).toBe(201);
    return endedRun(((await res.json()) as { data: { run_id: string } }).data.run_id, key);
  };

  it("when a LoRA is uploaded, then its header is read, and it is the account's and the mode's alone until deleted with its bytes", async () => {
    const bytes = lora();
    const res = await upload(bytes, "brand-style.safetensors");
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({
      name: "brand-style",
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      tensor_count: 2,
      rank: 4,
      layers: ["body.0"],
      base_hints: ["rdn_x2"],
      origin: "upload",
    });
    const id = data.id as string;
    expect(await stored()).toContain(`${id}.safetensors`);
    expect((await api(`/weights/${id}`)).status).toBe(200);
    expect(
      ((await (await api("/weights")).json()) as { data: { weights: { id: string }[] } }).data.weights.map(
        (w) => w.id,
      ),
    ).toContain(id);
    // Another account, or the same account's test key, sees nothing of it.
    expect((await api(`/weights/${id}`, {}, other)).status).toBe(404);
    expect((await api(`/weights/${id}`, {}, test)).status).toBe(404);
    expect((await api(`/weights/${id}`, { method: "DELETE" }, other)).status).toBe(404);
    expect((await api(`/weights/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await api(`/weights/${id}`)).status).toBe(404);
    expect(await stored()).not.toContain(`${id}.safetensors`);
  });

  it.each([
    [
      "a pickle (a PyTorch .ckpt)",
      Buffer.concat([Buffer.from([0x80, 0x02]), Buffer.from("ctorch._utils\n_rebuild_tensor_v2\n")]),
      "model.ckpt",
    ],
    ["a PNG named .safetensors", Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), "x.safetensors"],
    ["a header whose tensors pass the file's end", lora().subarray(0, lora().length - 4), "cut.safetensors"],
    ["a file longer than its header says", Buffer.concat([lora(), Buffer.from("extra")]), "long.safetensors"],
  ])("when %s is uploaded, then it is 415 and nothing is kept", async (_what, bytes, filename) => {
    const before = await stored();
    const res = await upload(bytes, filename);
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: expect.stringMatching(/safetensors/) as unknown,
    });
    expect(await stored()).toEqual(before);
  });

  it("when weights come by URL, then they are fetched with the file inputs' rules; past the size limit, 413", async () => {
    const bytes = lora(2);
    origin.respond = (request) =>
      request.path === "/loras/a.safetensors" ? { status: 200, body: bytes } : { status: 404 };
    const res = await api("/weights", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: origin.url("/loras/a.safetensors"), name: "fetched" }),
    });
    expect(res.status).toBe(201);
    const made = ((await res.json()) as { data: { id: string; name: string; origin: string; rank: number } })
      .data;
    expect(made).toMatchObject({ name: "fetched", origin: "url", rank: 2 });
    const missing = await api("/weights", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: origin.url("/loras/none.safetensors") }),
    });
    expect(missing.status).toBe(400);
    expect(
      ((await missing.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path,
    ).toBe("url");
    // A file past WEIGHTS_MAX_BYTES is refused as soon as it grows past it.
    const big = await upload(
      writeSafetensors([{ name: "w", dtype: "U8", shape: [100 * 1024], data: new Uint8Array(100 * 1024) }]),
    );
    expect(big.status).toBe(413);
    expect((await api(`/weights/${made.id}`, { method: "DELETE" })).status).toBe(200);
  });

  it("when an account holds its cap of weights, then one more is 409 and nothing more is kept", async () => {
    const made = await Promise.all([1, 2, 3, 4, 5].map(() => upload(lora(), "many.safetensors", other)));
    const statuses = made.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409]);
    const listed = (await (await api("/weights", {}, other)).json()) as { data: { weights: unknown[] } };
    expect(listed.data.weights).toHaveLength(3);
  });

  it("when the SDK adds weights from bytes and lists them, then they are there, named as asked", async () => {
    const { client } = await service.account(10);
    const made = await client.weights.create({ file: lora(8), name: "sdk-style" });
    expect(made).toMatchObject({ name: "sdk-style", rank: 8, origin: "upload" });
    expect((await client.weights.list()).weights.map((w) => w.id)).toEqual([made.id]);
    expect(await client.weights.get(made.id)).toMatchObject({ id: made.id });
    expect(await client.weights.delete(made.id)).toEqual({ id: made.id, deleted: true });
  });

  it("when the form names the weights, or gives a file and a url, then the name is kept, or it is refused", async () => {
    const named = await upload(lora(), "x.safetensors", test, { name: "test-style" });
    expect(named.status).toBe(201);
    expect(((await named.json()) as { data: { name: string } }).data.name).toBe("test-style");
    const both = await upload(lora(), "x.safetensors", test, { url: "https://example.com/a.safetensors" });
    expect(both.status).toBe(400);
    const neither = await api(
      "/weights",
      { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
      test,
    );
    expect(neither.status).toBe(400);
    const listed = (await (await api("/weights", {}, test)).json()) as { data: { weights: unknown[] } };
    expect(listed.data.weights).toHaveLength(1);
  });

  /** A LoRA of acme/upscale's SR layer (12 in, 3 out, 3x3), every value `value`. */
  const srLora = (value: number, rank = 2) =>
    writeSafetensors(
      [
        {
          name: "SR.lora_down.weight",
          dtype: "F32",
          shape: [rank, 12, 3, 3],
          data: new Uint8Array(new Float32Array(rank * 108).fill(value).buffer),
        },
        {
          name: "SR.lora_up.weight",
          dtype: "F32",
          shape: [3, rank, 1, 1],
          data: new Uint8Array(new Float32Array(3 * rank).fill(value).buffer),
        },
      ],
      { ss_base_model_version: "rdn_x2" },
    );
  const weightsId = async (bytes: Uint8Array, key = live) => {
    const res = await upload(bytes, "sr.safetensors", key);
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const run = (input: Record<string, unknown>, key = live) =>
    api(
      "/models/acme/upscale/run",
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input }) },
      key,
    );
  /** The run's output image's bytes, once it has ended. */
  const outputOf = async (runId: string) => {
    const done = await endedRun(runId);
    expect(done.status).toBe("COMPLETED");
    return Buffer.from(await (await fetch(done.output!.images[0]!)).arrayBuffer());
  };

  it("when acme/upscale runs with LoRAs, then a LoRA of zeros leaves its output as it was, a real one changes it, and a LoRA that fits no layer is refused naming it", async () => {
    const image = testPng(16, 16);
    const plain = (await (
      await run({ image: `data:image/png;base64,${image.toString("base64")}` })
    ).json()) as { data: { run_id: string } };
    const base = await outputOf(plain.data.run_id);
    const zero = await weightsId(srLora(0));
    const style = await weightsId(srLora(0.02));
    const input = (loras: unknown[]) => ({
      image: `data:image/png;base64,${image.toString("base64")}`,
      loras,
    });
    const zeroRun = (await (await run(input([{ weights: zero }]))).json()) as { data: { run_id: string } };
    expect(Buffer.compare(await outputOf(zeroRun.data.run_id), base)).toBe(0);
    const styledRun = (await (
      await run(input([{ weights: style, scale: 0.8 }, { weights: zero }]))
    ).json()) as {
      data: { run_id: string };
    };
    expect(Buffer.compare(await outputOf(styledRun.data.run_id), base)).not.toBe(0);
    // Its price: 3 tokens an image, plus 1 per LoRA it applied (acme/upscale's tokens_per_lora).
    const charged = (await (await api(`/runs/${styledRun.data.run_id}`)).json()) as {
      data: { tokens_charged: number };
    };
    expect(charged.data.tokens_charged).toBe(3 + 2);

    // A LoRA of a layer the network does not have, another account's weights, too many LoRAs: 400s.
    const elsewhere = await weightsId(lora());
    const wrong = await run(input([{ weights: zero }, { weights: elsewhere }]));
    expect(wrong.status).toBe(400);
    expect(
      ((await wrong.json()) as { error: { details: { path: string; message: string }[] } }).error.details,
    ).toEqual([
      { path: "input.loras[1]", message: "the tensor body.0.lora_down.weight names no layer this model has" },
    ]);
    const theirs = await weightsId(srLora(0.01), (await service.account(10)).liveKey);
    const notMine = await run(input([{ weights: theirs }]));
    expect(notMine.status).toBe(400);
    expect(JSON.stringify(await notMine.json())).toMatch(/input\.loras\[0\].*no weights/);
    expect((await run(input([{ weights: zero }, { weights: zero }, { weights: zero }]))).status).toBe(400);
    expect((await run(input([{ weights: zero, scale: 9 }]))).status).toBe(400);
    for (const id of [zero, style, elsewhere]) await api(`/weights/${id}`, { method: "DELETE" });
  });

  it("when a Cog model takes LoRAs, then its server gets each one's stable URL in its slots, and loads it once for runs that name it again", async () => {
    const { liveKey } = await service.account(1000);
    const first = await weightsId(lora(2), liveKey);
    const second = await weightsId(lora(3), liveKey);
    const flux = (loras: unknown[]) =>
      api(
        "/models/lora/flux/run",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: { prompt: "a cat", loras } }),
        },
        liveKey,
      );
    const one = await ended(await flux([{ weights: first, scale: 0.7 }]), liveKey);
    expect(one.status).toBe("COMPLETED");
    const sent = cog.puts.find((p) => p.id === one.runId)!.input;
    expect(sent).toMatchObject({ prompt: "a cat", lora_scale: 0.7 });
    expect(sent).not.toHaveProperty("loras");
    const url = String(sent.lora_weights);
    expect(url).toMatch(/\/files\/weights\/[0-9a-f]{64}\.safetensors\?expires=\d+&signature=/);
    // The URL serves the weights' bytes to anyone holding it (no key), named by their sha256.
    const served = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(createHash("sha256").update(served).digest("hex")).toBe(url.split("/weights/")[1]!.slice(0, 64));
    expect((await fetch(url.replace(/signature=[^&]+/, "signature=forged"))).status).toBe(404);

    const two = await ended(await flux([{ weights: first }, { weights: second, scale: -0.5 }]), liveKey);
    expect(two.status).toBe("COMPLETED");
    const again = cog.puts.find((p) => p.id === two.runId)!.input;
    expect(again.lora_weights).toBe(url);
    expect(again).toMatchObject({ lora_scale: 1, extra_lora_scale: -0.5 });
    expect(cog.loras.map((l) => [l.id === one.runId ? "one" : "two", l.hit])).toEqual([
      ["one", false],
      ["two", true],
      ["two", false],
    ]);
    // Deleted weights: a run that names them is refused when it is made.
    await api(`/weights/${second}`, { method: "DELETE" }, liveKey);
    const gone = await flux([{ weights: second }]);
    expect(gone.status).toBe(400);
  });

  it("when the operator publishes weights, then every account lists them and runs with them in both modes, only the owner deletes them, and unpublished they are the owner's alone again", async () => {
    const owner = await service.account(1000);
    const stranger = await service.account(1000);
    const id = await weightsId(lora(2), owner.liveKey);
    const flux = (weights: string, key: string) =>
      api(
        "/models/lora/flux/run",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: { prompt: "house style", loras: [{ weights }] } }),
        },
        key,
      );
    const asCli = (...argv: string[]) =>
      runCommand(service.database.db, argv, () => {}, { API_KEYS_PER_MODE_MAX: 20 });
    // Not published: another account can name them neither by id nor by a URL of ours.
    const byApiUrl = `${service.base}/api/v1/weights/${id}`;
    const one = await ended(await flux(byApiUrl, owner.liveKey), owner.liveKey);
    expect(one.status).toBe("COMPLETED");
    const served = String(cog.puts.find((p) => p.id === one.runId)!.input.lora_weights);
    for (const ref of [id, byApiUrl, served]) {
      const refused = await flux(ref, stranger.liveKey);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(await refused.json())).toContain("input.loras[0]");
    }
    await asCli("weights", "publish", id, "--reason", "house style");
    for (const key of [stranger.liveKey, stranger.testKey]) {
      const listed = (await (await api("/weights", {}, key)).json()) as {
        data: { weights: { id: string; published: boolean }[] };
      };
      expect(listed.data.weights).toContainEqual(expect.objectContaining({ id, published: true }));
      expect((await ended(await flux(id, key), key)).status).toBe("COMPLETED");
    }
    expect((await ended(await flux(served, stranger.liveKey), stranger.liveKey)).status).toBe("COMPLETED");
    const denied = await api(`/weights/${id}`, { method: "DELETE" }, stranger.liveKey);
    expect(denied.status).toBe(403);
    await asCli("weights", "unpublish", id);
    expect((await api(`/weights/${id}`, {}, stranger.liveKey)).status).toBe(404);
    expect((await flux(id, stranger.liveKey)).status).toBe(400);
    expect((await api(`/weights/${id}`, { method: "DELETE" }, owner.liveKey)).status).toBe(200);
  });

  it("when weights are deleted after a run that names them was made and before it starts, then it fails INPUT_FILE_UNAVAILABLE, charged nothing", async () => {
    const { liveKey } = await service.account(1000);
    const doomed = await weightsId(lora(2), liveKey);
    const flux = (input: Record<string, unknown>) =>
      api(
        "/models/lora/flux/run",
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input }) },
        liveKey,
      ).then(async (res) => ((await res.json()) as { data: { run_id: string } }).data.run_id);
    // The server's one slot is held by a long prediction, so the run with the LoRA waits QUEUED.
    const waitFinish = cog.puts.length;
    cog.behaviour.delayMs = 60_000;
    const holder = await flux({ prompt: "hold the slot" });
    await waitFor(async () => cog.puts.length > waitFinish, { what: "the first prediction" });
    cog.behaviour.delayMs = 20;
    const queued = await flux({ prompt: "later", loras: [{ weights: doomed }] });
    expect((await api(`/weights/${doomed}`, { method: "DELETE" }, liveKey)).status).toBe(200);
    cog.finish(holder);
    expect(await endedRun(queued, liveKey)).toMatchObject({
      status: "FAILED",
      error: { code: "INPUT_FILE_UNAVAILABLE" },
    });
    expect(cog.puts.some((p) => p.id === queued)).toBe(false);
    const row = await service.database.db.run.findUniqueOrThrow({ where: { id: queued } });
    expect(row.tokensCharged).toBe(0);
  });

  it("when Replicate's client runs a model that takes LoRAs with lora_weights and lora_scale, then they are the run's LoRAs", async () => {
    const { liveKey } = await service.account(1000);
    const weights = await weightsId(lora(2), liveKey);
    const replicate = new Replicate({ auth: liveKey, baseUrl: `${service.base}/replicate/v1` });
    const made = await replicate.predictions.create({
      model: "lora/flux",
      input: { prompt: "a dog", lora_weights: weights, lora_scale: 0.4 },
      wait: 30,
    });
    expect(made.status).toBe("succeeded");
    const sent = cog.puts.find((p) => p.id === made.id)!.input;
    expect(sent).toMatchObject({ prompt: "a dog", lora_scale: 0.4 });
    expect(String(sent.lora_weights)).toMatch(/\/files\/weights\/[0-9a-f]{64}\.safetensors\?/);
  });

  it("when OpenAI's client asks a model that takes LoRAs for images with our loras field, then they are the run's LoRAs, and a refused one is named loras[i]", async () => {
    const { liveKey } = await service.account(1000);
    const weights = await weightsId(lora(2), liveKey);
    const openai = new OpenAI({ apiKey: liveKey, baseURL: `${service.base}/openai/v1` });
    // OpenAI's API has no LoRA field: the client sends an extra body field as it is.
    const made = await openai.images.generate({
      model: "lora/flux",
      prompt: "a heron",
      loras: [{ weights, scale: 0.3 }],
    } as OpenAI.Images.ImageGenerateParamsNonStreaming);
    expect(made.data).toHaveLength(1);
    const sent = cog.puts.at(-1)!.input;
    expect(sent).toMatchObject({ prompt: "a heron", lora_scale: 0.3 });
    expect(String(sent.lora_weights)).toMatch(/\/files\/weights\/[0-9a-f]{64}\.safetensors\?/);
    const refused = await openai.images
      .generate({
        model: "lora/flux",
        prompt: "a heron",
        loras: [{ weights: "wts_nobody" }],
      } as OpenAI.Images.ImageGenerateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("loras[0]");
  });

  it("when a ComfyUI workflow has LoRA slots, then each node gets its LoRA's stable URL and strength, loads it once, and an empty slot gets strength 0", async () => {
    const { liveKey } = await service.account(1000);
    const weights = await weightsId(lora(2), liveKey);
    const second = await weightsId(lora(3), liveKey);
    const runOf = async (input: Record<string, unknown>) =>
      ended(
        await api(
          "/models/lora/comfy/run",
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ input }),
          },
          liveKey,
        ),
        liveKey,
      );
    const one = await runOf({
      prompt: "a fox",
      loras: [
        { weights, scale: 0.6 },
        { weights: second, scale: -0.3 },
      ],
    });
    expect(one.status).toBe("COMPLETED");
    const two = await runOf({ prompt: "a fox again", loras: [{ weights }] });
    expect(two.status).toBe("COMPLETED");
    const plain = await runOf({ prompt: "no lora" });
    expect(plain.status).toBe("COMPLETED");
    const [first, again, none] = comfy.prompts
      .slice(-3)
      .map((p) => [p.prompt["20"]!.inputs, p.prompt["21"]!.inputs]);
    expect(first![0]).toMatchObject({ strength_model: 0.6, strength_clip: 0.6 });
    expect(first![1]).toMatchObject({ strength_model: -0.3, strength_clip: -0.3 });
    expect(String(first![0]!.url)).toMatch(/\/files\/weights\/[0-9a-f]{64}\.safetensors\?/);
    expect(first![1]!.url).not.toBe(first![0]!.url);
    expect(again![0]!.url).toBe(first![0]!.url);
    expect(again![1]).toMatchObject({ strength_model: 0, strength_clip: 0 });
    expect(none!.map((n) => n.strength_model)).toEqual([0, 0]);
    expect(comfy.loras.map((l) => l.hit)).toEqual([false, false, true]);
  });

  it("when a place frees on a server that has a waiting run's LoRA loaded, then that run takes it before the account's older runs, and the workers' metrics count the hits", async () => {
    const servers = [
      await startFakeCog({ behaviour: { delayMs: 400, loraFields: ["lora_weights"], loras: { size: 2 } } }),
      await startFakeCog({ behaviour: { delayMs: 400, loraFields: ["lora_weights"], loras: { size: 2 } } }),
    ];
    try {
      await seedCogModel(
        service.database.db,
        "lora/pair",
        servers.map((s) => s.url),
        {
          input_schema: loraModelInput(1),
          runner: { loras: [{ url: "lora_weights", scale: "lora_scale" }], lora_cache: 2 },
        },
      );
      const { liveKey } = await service.account(1000);
      const [x, y] = [await weightsId(lora(5), liveKey), await weightsId(lora(6), liveKey)];
      const pair = async (weights: string) =>
        (
          (await (
            await api(
              "/models/lora/pair/run",
              {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ input: { prompt: "p", loras: [{ weights }] } }),
              },
              liveKey,
            )
          ).json()) as { data: { run_id: string } }
        ).data.run_id;
      // One run loads X on a server, one Y on the other; then Y's run waits before X's.
      const first = [await pair(x), await pair(y)];
      await waitFor(async () => servers.every((s) => s.puts.length === 1), { what: "both servers busy" });
      const [laterY, laterX] = [await pair(y), await pair(x)];
      for (const id of [...first, laterY, laterX])
        expect((await endedRun(id, liveKey)).status).toBe("COMPLETED");
      const serverOf = (id: string) => servers.findIndex((s) => s.puts.some((p) => p.id === id));
      expect(serverOf(laterX)).toBe(serverOf(first[0]!));
      expect(serverOf(laterY)).toBe(serverOf(first[1]!));
      expect(servers.flatMap((s) => s.loras.map((l) => l.hit)).sort()).toEqual([false, false, true, true]);
      const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const hits = [
        ...scraped.matchAll(/^svc_weights_cache_hits\{model="lora\/pair",server="[^"]+"\} (\d+)$/gm),
      ];
      expect(hits.reduce((n, m) => n + Number(m[1]), 0)).toBe(2);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});
