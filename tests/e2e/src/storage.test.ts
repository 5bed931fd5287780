import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verify as verifyServiceSignature } from "@octokit/webhooks-methods";
import { ModelRunClient, type AnyRun } from "@svc/sdk";
import {
  freePort,
  probeMedia,
  startHttpsReceiver,
  startS3Server,
  stopApps,
  waitFor,
  type TestS3Server,
} from "@svc/testkit";
import { startService, type E2EService, type RunningApi } from "./service.js";

// The real API and worker processes on different output directories, sharing nothing but a bucket
// on a real S3-protocol server: one API proxies the files, another hands out signed URLs.
describe("outputs in an S3-compatible bucket", () => {
  let service: E2EService;
  let s3: TestS3Server;
  let proxied: RunningApi & { client: ModelRunClient };
  let signed: RunningApi & { client: ModelRunClient };
  let dirs: string[];

  beforeAll(async () => {
    s3 = await startS3Server("runs/outputs/");
    dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), "svc-nofiles-"))));
    // URLs name the proxying API; the signing API re-signs what the worker stored.
    service = await startService(s3.env);
    // One account, read through either API.
    const { liveKey } = await service.account(10_000);
    const withClient = (api: RunningApi) => ({
      ...api,
      client: new ModelRunClient({ apiKey: liveKey, baseUrl: api.base }),
    });
    proxied = await withClient(await service.startApi({ OUTPUT_DIR: dirs[0]! }));
    signed = await withClient(
      await service.startApi({ OUTPUT_DIR: dirs[1]!, OUTPUT_URLS: "signed", OUTPUT_URL_TTL_SECONDS: "2" }),
    );
    await service.startWorker({
      OUTPUT_DIR: dirs[2]!,
      OUTPUT_URLS: "signed",
      OUTPUT_URL_TTL_SECONDS: "600",
      OUTPUT_RETENTION_DAYS: "1",
      OUTPUT_EXPIRY_INTERVAL_MS: "200",
    });
  });
  afterAll(async () => {
    await service?.stop();
    await s3?.close();
  });

  const complete = async (model: string, input: Record<string, unknown>, extra = {}) => {
    const created = await proxied.client.runs.create(model, { input, ...extra });
    return waitFor(
      async () => {
        const run = await proxied.client.runs.get(created.run_id);
        return run.status === "COMPLETED" ? run : null;
      },
      { what: `run ${created.run_id} to complete`, intervalMs: 50 },
    );
  };
  const images = (run: AnyRun) => (run.output?.images ?? []) as string[];
  const tokenOf = (url: string) => /\/files\/(out_\w{22})\//.exec(url)![1]!;
  /** An output's key in the bucket: `<token>/<name>`. */
  const keyOf = (url: string) => /\/files\/(out_\w{22}\/[^/?]+)/.exec(url)![1]!;
  const bytes = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    return { res, body: Buffer.from(await res.arrayBuffer()) };
  };

  it("when a run completes, then its outputs are in the bucket under the prefix, served by the API, and no directory holds a file", async () => {
    const run = await complete("test/instant", { prompt: "in the bucket", num_images: 2 });
    const urls = run.output!.images as string[];
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(url.startsWith(`${proxied.base}/files/out_`)).toBe(true);
    const token = tokenOf(urls[0]!);
    expect(await s3.keys()).toEqual(expect.arrayContaining(urls.map(keyOf)));
    expect(keyOf(urls[0]!).startsWith(`${token}/`)).toBe(true);
    const { res, body } = await bytes(urls[0]!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(body.subarray(1, 4).toString()).toBe("PNG");
    const part = await bytes(urls[0]!, { range: "bytes=1-3" });
    expect(part.res.status).toBe(206);
    expect(part.body.toString()).toBe("PNG");
    expect((await fetch(urls[0]!, { headers: { "if-none-match": res.headers.get("etag")! } })).status).toBe(
      304,
    );
    expect((await fetch(`${proxied.base}/files/${token}/7.png`)).status).toBe(404);
    for (const dir of dirs) expect(await readdir(dir)).toEqual([]);
  });

  it("when signed URLs are configured, then a read gives presigned bucket URLs that work, expire, and are made afresh at the next read", async () => {
    const run = await complete("test/instant", { prompt: "signed" });
    const stored = (run.output!.images as string[])[0]!;
    const first = images(await signed.client.runs.get(run.run_id));
    expect(first[0]).toMatch(new RegExp(`^${s3.endpoint}/${s3.bucket}/runs/outputs/${keyOf(stored)}\\?`));
    expect(first[0]).toMatch(/X-Amz-Expires=2&/);
    const { res, body } = await bytes(first[0]!);
    expect(res.status).toBe(200);
    expect(body.equals((await bytes(stored)).body)).toBe(true);
    // The list and the event stream sign too.
    const listed = await signed.client.runs.list({ limit: 5 });
    expect(images(listed.runs.find((r) => r.run_id === run.run_id)!)[0]).toMatch(/X-Amz-Signature=/);
    let last: AnyRun | undefined;
    for await (const event of signed.client.stream(run.run_id)) if (event.type === "status") last = event.run;
    expect(images(last!)[0]).toMatch(/X-Amz-Signature=/);
    await waitFor(async () => ((await fetch(first[0]!)).status === 403 ? true : null), {
      what: "the signed URL to expire",
      intervalMs: 250,
    });
    const again = images(await signed.client.runs.get(run.run_id));
    expect((await fetch(again[0]!)).status).toBe(200);
    // The console's pages may show media from the bucket's origin, and from nowhere else new.
    const csp = (await fetch(`${signed.base}/console/`)).headers.get("content-security-policy")!;
    expect(csp).toContain(`img-src 'self' data: blob: ${s3.endpoint};`);
    expect(csp).toContain(`media-src 'self' blob: ${s3.endpoint};`);
    expect((await fetch(`${proxied.base}/console/`)).headers.get("content-security-policy")).toContain(
      "media-src 'self' blob:;",
    );
  });

  it("when a video run completes, then the bucket holds an H.264 MP4 of the asked size and duration", async () => {
    const run = await complete("acme/motion/clip", {
      prompt: "a red ball",
      duration_seconds: 2,
      video_size: "square",
    });
    const [url] = run.output!.video as string[];
    expect(url).toMatch(/-video\.mp4$/);
    const { res, body } = await bytes(url!);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    const probed = await probeMedia(body);
    expect(probed.format).toMatch(/mp4/);
    expect(probed.seconds).toBeCloseTo(2, 1);
    expect(probed.streams).toEqual([{ type: "video", codec: "h264", width: 240, height: 240 }]);
  });

  it("when the worker delivers a webhook with signed URLs configured, then the payload's URLs are presigned and work", async () => {
    const receiver = await startHttpsReceiver();
    try {
      const secret = await proxied.client.webhooks.defaultSecret();
      const created = await proxied.client.runs.create("test/instant", {
        input: { prompt: "delivered" },
        webhook_url: receiver.url("/hook"),
      });
      const [request] = await receiver.waitForRequests(1);
      const payload = JSON.parse(request!.body);
      expect(payload.data.run_id).toBe(created.run_id);
      const [url] = payload.data.result.images as string[];
      expect(url).toMatch(new RegExp(`^${s3.endpoint}/.*X-Amz-Expires=600&`));
      expect((await fetch(url!)).status).toBe(200);
      expect(
        await verifyServiceSignature(secret, request!.body, String(request!.headers["x-service-signature"])),
      ).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it("when outputs are older than the retention, then the worker deletes them from the bucket and their URLs answer 410", async () => {
    const old = await complete("test/instant", { prompt: "old", num_images: 2 });
    const fresh = await complete("test/instant", { prompt: "fresh" });
    const oldUrls = old.output!.images as string[];
    const [oldUrl] = oldUrls;
    const token = tokenOf(oldUrl!);
    for (const url of oldUrls) await s3.age(keyOf(url), 2);
    const gone = await waitFor(
      async () => {
        const res = await fetch(oldUrl!);
        return res.status === 410 ? res : null;
      },
      { what: "the old outputs to expire", intervalMs: 100 },
    );
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("OUTPUT_EXPIRED");
    // The files go; a marker stays, so that their URLs keep answering 410.
    await waitFor(
      async () => {
        const left = (await s3.keys()).filter((k) => k.startsWith(token));
        return left.length === 1 && left[0] === `${token}/.expired` ? true : null;
      },
      { what: "the old outputs to be deleted from the bucket" },
    );
    expect((await fetch((fresh.output!.images as string[])[0]!)).status).toBe(200);
  });

  it("when the bucket cannot be reached, then a file read answers 503 SERVICE_UNAVAILABLE with Retry-After, not a 500", async () => {
    const closed = await freePort();
    const away = await service.startApi({ S3_ENDPOINT: `http://127.0.0.1:${closed}`, OUTPUT_DIR: dirs[0]! });
    try {
      const res = await fetch(`${away.base}/files/out_AAAAAAAAAAAAAAAAAAAAAA/0.png`);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");
      expect(away.app.lines.some((l) => l.message === "output store unavailable")).toBe(true);
    } finally {
      await stopApps(away.app);
    }
  });

  it("when a worker cannot reach the bucket, then the run is retried, then FAILED with INTERNAL_ERROR and refunded", async () => {
    const closed = await freePort();
    const cut = await startService({ ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${closed}` });
    try {
      await cut.startApi();
      const worker = await cut.startWorker();
      const { client } = await cut.account(100);
      const created = await client.runs.create("test/instant", { input: { prompt: "nowhere to go" } });
      const run = await waitFor(
        async () => {
          const now = await client.runs.get(created.run_id);
          return now.status === "FAILED" ? now : null;
        },
        { what: "the run to fail", timeoutMs: 30_000 },
      );
      expect(run.error.code).toBe("INTERNAL_ERROR");
      expect(await client.account.get()).toMatchObject({ balance: 100, reserved: 0 });
      const attempts = worker.lines.filter(
        (l) => l.message === "run job failed" && l.job_id === created.run_id,
      );
      expect(attempts.length).toBeGreaterThanOrEqual(2);
    } finally {
      await cut.stop();
    }
  });
});
