import { startHttpsReceiver, testPng, waitFor, type HttpsReceiver } from "@svc/testkit";
import Replicate, { validateWebhook, type ApiError, type Prediction } from "replicate";
import { limitedKey, startService, type E2EService } from "./service.js";

// Replicate's official client (replicate@1.4.0, pinned) against the built API and worker at
// /replicate/v1: the same runs, billing, keys and webhooks as our own API, in Replicate's shapes.
describe("Replicate's client", () => {
  let service: E2EService;
  let receiver: HttpsReceiver;
  let accountId: string;
  let replicate: Replicate;
  let testReplicate: Replicate;
  const balance = async () =>
    (await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } })).balance;
  const client = (auth: string) => new Replicate({ auth, baseUrl: `${service.base}/replicate/v1` });
  const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });
  /** The ApiError a call raised (Replicate's client puts the status and the body in it). */
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    // The client's ApiError (a type only in its typings): its name, its request and response.
    expect(error).toMatchObject({ name: "ApiError", response: expect.any(Response) });
    const e = error as ApiError;
    return { status: e.response.status, message: e.message };
  };

  beforeAll(async () => {
    service = await startService();
    await service.startApi();
    await service.startWorker();
    receiver = await startHttpsReceiver();
    const a = await service.account(1_000);
    accountId = a.accountId;
    replicate = client(a.liveKey);
    testReplicate = client(a.testKey);
  });
  afterAll(async () => {
    await receiver?.close();
    await service?.stop();
  });

  it("when replicate.run() waits for a model, then it gets the images' URLs and the account is charged as through our API", async () => {
    const before = await balance();
    const output = (await replicate.run("test/instant", {
      input: { prompt: "a lighthouse", num_images: 2, image_size: "landscape_4_3" },
    })) as string[];
    expect(output).toHaveLength(2);
    for (const url of output) {
      const res = await fetch(url);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1024, height: 768 });
    }
    // test/instant: 5 tokens an image.
    expect(before - (await balance())).toBe(10);
  });

  it("when replicate.run() polls instead of waiting, then it follows the prediction to its end", async () => {
    const seen: string[] = [];
    const output = await replicate.run(
      "test/steps",
      { input: { prompt: "polled", num_images: 2 }, wait: { mode: "poll", interval: 100 } },
      (p: Prediction) => seen.push(p.status),
    );
    expect(output).toEqual([expect.stringMatching(/\.png$/), expect.stringMatching(/\.png$/)]);
    expect(seen[0]).toBe("starting");
    expect(seen.at(-1)).toBe("succeeded");
  });

  it("when predictions are made with a version, read, listed and canceled, then each answers Replicate's prediction", async () => {
    // A model id of three segments is reached through `version`.
    const made = await replicate.predictions.create({
      version: "acme/pixel/fast",
      input: { prompt: "by version" },
    });
    expect(made).toMatchObject({
      id: expect.stringMatching(/^run_/),
      model: "acme/pixel/fast",
      version: "acme/pixel/fast",
      status: "starting",
      input: { prompt: "by version", num_images: 1, image_size: "square_hd" },
      output: null,
      error: null,
      urls: {
        get: `${service.base}/replicate/v1/predictions/${made.id}`,
        cancel: `${service.base}/replicate/v1/predictions/${made.id}/cancel`,
      },
    });
    const done = await replicate.wait(made, { interval: 100 });
    expect(done.status).toBe("succeeded");
    expect(done.output).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/files\/.+\.png$/)]);
    expect(done.metrics).toMatchObject({ predict_time: expect.any(Number), tokens_charged: 2 });
    expect(done.completed_at).not.toBeNull();

    const slow = await replicate.predictions.create({ model: "test/slow", input: { prompt: "cancel me" } });
    await waitFor(async () => (await replicate.predictions.get(slow.id)).status === "processing");
    const canceled = await replicate.predictions.cancel(slow.id);
    expect(canceled).toMatchObject({ id: slow.id, status: "canceled", output: null });
    // Canceled before its one image was delivered: charged nothing (our partial-cancel rule).
    expect((await replicate.predictions.get(slow.id)).metrics).toMatchObject({ tokens_charged: 0 });

    // An Idempotency-Key replays the prediction made with it, as on our own route.
    const once = (prompt: string) =>
      fetch(`${service.base}/replicate/v1/models/test/instant/predictions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${replicate.auth}`,
          "content-type": "application/json",
          "idempotency-key": "order-7",
        },
        body: JSON.stringify({ input: { prompt } }),
      });
    const first = (await (await once("twice")).json()) as Prediction;
    const again = await once("twice");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as Prediction).id).toBe(first.id);
    expect((await once("another body")).status).toBe(409);

    const ids: string[] = [];
    for await (const page of replicate.paginate(() => replicate.predictions.list()))
      ids.push(...page.map((p) => p.id));
    expect(ids).toEqual(expect.arrayContaining([made.id, slow.id]));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("when the client leaves a wait, then the run is canceled; and a prediction's stream ends with its output", async () => {
    const leaving = new AbortController();
    const creating = replicate.predictions.create({
      model: "test/slow",
      input: { prompt: "left behind" },
      wait: 30,
      signal: leaving.signal,
    });
    const run = await waitFor(() =>
      service.database.db.run.findFirst({
        where: { accountId, input: { path: ["prompt"], equals: "left behind" } },
      }),
    );
    leaving.abort();
    await expect(creating).rejects.toThrow();
    await waitFor(async () => (await replicate.predictions.get(run.id)).status === "canceled");

    const made = await replicate.predictions.create({ model: "test/steps", input: { prompt: "streamed" } });
    const res = await fetch(made.urls.stream!, { headers: { authorization: `Bearer ${replicate.auth}` } });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toMatch(/event: output\ndata: \["http[^"]+\.png"\]\n\n/);
    expect(text).toMatch(/event: done\ndata: \{\}\n\n$/);
  });

  it("when an input is a Buffer, then the client uploads it to the files API and the model gets it", async () => {
    const image = testPng(40, 30);
    const output = (await replicate.run("acme/upscale", { input: { image } })) as unknown as string;
    const res = await fetch(output);
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 80, height: 60 });
    const files = await replicate.files.list();
    const file = files.results[0]!;
    expect(file).toMatchObject({ content_type: "image/png", size: image.length });
    expect(await replicate.files.get(file.id)).toMatchObject({ id: file.id });
    expect(await replicate.files.delete(file.id)).toBe(true);
    expect((await refusal(replicate.files.get(file.id))).status).toBe(404);
  });

  it("when a prediction has a webhook, then its deliveries are the prediction, and validateWebhook accepts them with the client's secret", async () => {
    const secret = (await replicate.webhooks.default.secret.get()).key;
    expect(secret).toMatch(/^whsec_/);
    const made = await replicate.predictions.create({
      model: "test/instant",
      input: { prompt: "hooked" },
      webhook: receiver.url("/replicate"),
      webhook_events_filter: ["start", "completed"],
    });
    const requests = await waitFor(async () => {
      const mine = receiver.requests.filter((r) => (JSON.parse(r.body) as Prediction).id === made.id);
      return mine.some((r) => (JSON.parse(r.body) as Prediction).status === "succeeded") ? mine : null;
    });
    // As a receiver checks a delivery: the request it got, and the secret the client read.
    const received = (headers: object, body: string) =>
      new Request(receiver.url("/replicate"), {
        method: "POST",
        headers: headers as Record<string, string>,
        body,
      });
    for (const r of requests) {
      expect(await validateWebhook(received(r.headers, r.body), secret)).toBe(true);
      expect(await validateWebhook(received(r.headers, `${r.body} `), secret)).toBe(false);
    }
    const last = JSON.parse(requests.at(-1)!.body) as Prediction;
    expect(last).toMatchObject({ id: made.id, status: "succeeded", output: [expect.any(String)] });
    expect(requests.length).toBeGreaterThanOrEqual(2);
  });

  it("when a request is refused, then the client raises ApiError with Replicate's status and detail", async () => {
    const invalid = await refusal(
      replicate.predictions.create({ model: "test/instant", input: { num_images: 9 } }),
    );
    expect(invalid.status).toBe(422);
    expect(invalid.message).toMatch(/input\.prompt/);
    expect((await refusal(replicate.models.get("acme", "nothing"))).status).toBe(404);
    expect((await refusal(client("svc_live_nope").predictions.list())).status).toBe(401);
    const model = await replicate.models.get("acme", "pixel-hq");
    expect(model).toMatchObject({ owner: "acme", name: "pixel-hq", latest_version: { id: "acme/pixel-hq" } });
    const schema = (
      model.latest_version!.openapi_schema as {
        components: { schemas: { Input: { properties: Record<string, unknown> } } };
      }
    ).components.schemas.Input;
    expect(schema.properties.prompt).toMatchObject({ type: "string", "x-order": 0 });
    const listed = await replicate.models.list();
    expect(listed.results.map((m) => `${m.owner}/${m.name}`)).toContain("acme/pixel-hq");
  });

  it("when test keys, budgets and allow-lists apply, then they apply through Replicate's API too", async () => {
    const before = await balance();
    const output = await testReplicate.run("test/instant", { input: { prompt: "free" } });
    expect(output).toHaveLength(1);
    expect(await balance()).toBe(before);

    const allowListKey = await limitedKey(service.database.db, accountId, "only-fast", [
      "--models",
      "acme/pixel/fast",
    ]);
    const onlyFast = client(allowListKey.key);
    expect((await refusal(onlyFast.run("test/instant", { input: { prompt: "no" } }))).status).toBe(403);
    const cappedKey = await limitedKey(service.database.db, accountId, "capped", ["--budget", "7/day"]);
    const cappedClient = client(cappedKey.key);
    await cappedClient.predictions.create({ model: "test/instant", input: { prompt: "within" } });
    const over = await refusal(
      cappedClient.predictions.create({ model: "test/instant", input: { prompt: "over" } }),
    );
    expect(over.status).toBe(402);
    expect(over.message).toMatch(/budget/);
  });
});
