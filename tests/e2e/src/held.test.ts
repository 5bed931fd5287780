import { connect } from "node:net";
import { createApiKey, revokeApiKey } from "@svc/db";
import { addUser } from "@svc/use-cases";
import { waitFor } from "@svc/testkit";
import OpenAI from "openai";
import { startService, type E2EService } from "./service.js";

// Event streams and waiting requests against the built API, as a client that holds too many
// would: caps per key, per account and per process, and the end of what a revoked key or an
// ended session holds. No worker runs: the runs stay QUEUED, so nothing ends by itself.
describe("held connections", () => {
  let service: E2EService;
  let base: string;
  const opened: AbortController[] = [];

  beforeAll(async () => {
    service = await startService();
    ({ base } = await service.startApi({
      HELD_PER_KEY: "3",
      HELD_PER_ACCOUNT: "5",
      HELD_PER_PROCESS: "8",
      AUTH_CACHE_TTL_MS: "1000",
      RATE_LIMIT_ENABLED: "true",
    }));
  });
  afterAll(async () => {
    for (const c of opened) c.abort();
    await service?.stop();
  });

  const call = (
    key: string,
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: object,
  ) =>
    fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body && { "content-type": "application/json" }),
        ...headers,
      },
      body: body && JSON.stringify(body),
    });
  const queuedRun = async (key: string) => {
    const res = await call(key, "POST", "/models/test/slow/run", {}, { input: { prompt: "held" } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { run_id: string } }).data.run_id;
  };
  /** Opens a run's event stream and keeps it open; resolves with its status and a reader. */
  const openStream = async (url: string, headers: Record<string, string>) => {
    const controller = new AbortController();
    opened.push(controller);
    const res = await fetch(url, { headers, signal: controller.signal });
    return { res, close: () => controller.abort() };
  };
  const stream = (key: string, runId: string) =>
    openStream(`${base}/api/v1/runs/${runId}/events`, { authorization: `Bearer ${key}` });
  /** Resolves when the stream's body has ended (the server closed it). */
  const ended = async (res: Response) => {
    const reader = res.body!.getReader();
    for (;;) if ((await reader.read()).done) return true;
  };
  const errorOf = async (res: Response) =>
    ((await res.json()) as { error: { code: string; message: string } }).error;

  it("when one key, one account and one process hold their most, then the next stream or wait is 429 with Retry-After and health checks still answer", async () => {
    const a = await service.account(1000);
    const keyB = (await createApiKey(service.database.db, a.accountId, "live", "second", 100))!.key;
    const runA = await queuedRun(a.liveKey);
    const runB = await queuedRun(keyB);
    const streamsA = await Promise.all([1, 2, 3].map(() => stream(a.liveKey, runA)));
    expect(streamsA.map((s) => s.res.status)).toEqual([200, 200, 200]);

    const overKey = await stream(a.liveKey, runA);
    expect(overKey.res.status).toBe(429);
    expect(overKey.res.headers.get("retry-after")).toBe("5");
    expect(await errorOf(overKey.res)).toMatchObject({
      code: "RATE_LIMITED",
      message: expect.stringMatching(/API key/),
    });
    const overKeyWait = await call(a.liveKey, "GET", `/runs/${runA}`, { prefer: "wait=30" });
    expect(overKeyWait.status).toBe(429);
    // A creation is never refused for it: the run is made and the preference is not honoured.
    const created = await call(
      a.liveKey,
      "POST",
      "/models/test/slow/run",
      { prefer: "wait=30" },
      { input: { prompt: "x" } },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get("preference-applied")).toBeNull();
    expect(((await created.json()) as { data: { status: string } }).data.status).toBe("queued");

    // The account's other key has room until the account's cap (5).
    expect((await stream(keyB, runB)).res.status).toBe(200);
    expect((await stream(keyB, runB)).res.status).toBe(200);
    const overAccount = await stream(keyB, runB);
    expect(overAccount.res.status).toBe(429);
    expect((await errorOf(overAccount.res)).message).toMatch(/account/);

    // Another account fills the process (8 places in all).
    const other = await service.account(1000);
    const keys = [
      other.liveKey,
      (await createApiKey(service.database.db, other.accountId, "live", "2", 100))!.key,
    ];
    const runs = await Promise.all(keys.map(queuedRun));
    expect((await stream(keys[0]!, runs[0]!)).res.status).toBe(200);
    expect((await stream(keys[0]!, runs[0]!)).res.status).toBe(200);
    expect((await stream(keys[0]!, runs[0]!)).res.status).toBe(200);
    const overProcess = await stream(keys[1]!, runs[1]!);
    expect(overProcess.res.status).toBe(429);
    expect((await errorOf(overProcess.res)).message).toMatch(/API process/);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    // Operators see the process's count against HELD_PER_PROCESS.
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^svc_held_connections 8$/m);

    // A stream that closes gives its place back.
    streamsA[0]!.close();
    await waitFor(async () => ((await stream(keys[1]!, runs[1]!)).res.status === 200 ? true : null), {
      what: "a place given back",
    });
  });

  it("when clients close their sockets at any moment of a stream or a wait, then every place comes back", async () => {
    const api = await service.startApi({ HELD_PER_KEY: "3", HELD_PER_ACCOUNT: "5" });
    const { liveKey } = await service.account(1000);
    const res = await fetch(`${api.base}/api/v1/models/test/slow/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${liveKey}`, "content-type": "application/json" },
      body: JSON.stringify({ input: { prompt: "dropped" } }),
    });
    const runId = ((await res.json()) as { data: { run_id: string } }).data.run_id;
    const { port } = new URL(api.base);
    /**
     * A raw request whose socket is destroyed `afterMs` after it was sent (0: in the same tick),
     * or once the first bytes of the answer arrive (null): before the key is read, while the place
     * is being taken, while the run is read, and once the stream has begun.
     */
    const dropped = (path: string, extra: string, afterMs: number | null) =>
      new Promise<void>((resolve) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${liveKey}\r\n${extra}\r\n`);
          if (afterMs === null) socket.once("data", () => socket.destroy());
          else if (afterMs === 0) socket.destroy();
          else setTimeout(() => socket.destroy(), afterMs);
        });
        socket.on("error", () => {});
        socket.on("close", () => resolve());
      });
    const stages = [0, 0, 1, 1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 30, null];
    // Two at a time, within the key's cap, so that each request gets as far as its moment allows.
    for (let round = 0; round < 4; round++)
      for (const afterMs of stages)
        await Promise.all([
          dropped(`/api/v1/runs/${runId}/events`, "", afterMs),
          // A wait sends nothing before it ends: it is dropped while waiting instead.
          dropped(`/api/v1/runs/${runId}`, "Prefer: wait=60\r\n", afterMs ?? 50),
        ]);
    // 128 requests dropped against a cap of 3: every place came back, in this process and in Redis.
    await waitFor(
      async () =>
        (await (await fetch(`${api.base}/metrics`)).text()).match(/^svc_held_connections 0$/m) ? true : null,
      { what: "no place held in the process" },
    );
    const streams = await Promise.all(
      [1, 2, 3].map(() =>
        openStream(`${api.base}/api/v1/runs/${runId}/events`, { authorization: `Bearer ${liveKey}` }),
      ),
    );
    expect(streams.map((s) => s.res.status)).toEqual([200, 200, 200]);
    for (const s of streams) s.close();
  });

  it("when a key is revoked, then its open streams end and its waiting requests answer 401", async () => {
    // A fresh process: the caps of the test above are full there.
    const api = await service.startApi({ AUTH_CACHE_TTL_MS: "1000" });
    const { accountId } = await service.account(1000);
    const made = (await createApiKey(service.database.db, accountId, "live", "doomed", 100))!;
    const res = await fetch(`${api.base}/api/v1/models/test/slow/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${made.key}`, "content-type": "application/json" },
      body: JSON.stringify({ input: { prompt: "doomed" } }),
    });
    const { run_id } = ((await res.json()) as { data: { run_id: string } }).data;
    const open = await openStream(`${api.base}/api/v1/runs/${run_id}/events`, {
      authorization: `Bearer ${made.key}`,
    });
    expect(open.res.status).toBe(200);
    const waiting = fetch(`${api.base}/api/v1/runs/${run_id}`, {
      headers: { authorization: `Bearer ${made.key}`, prefer: "wait=60" },
    });
    await revokeApiKey(service.database.db, made.record.id);
    expect(await ended(open.res)).toBe(true);
    const waited = await waiting;
    expect(waited.status).toBe(401);
    expect((await errorOf(waited)).code).toBe("UNAUTHORIZED");
  });

  it("when a console session signs out, then the streams it opened end", async () => {
    const api = await service.startApi({ AUTH_CACHE_TTL_MS: "1000" });
    const { accountId, liveKey } = await service.account(1000);
    await addUser(service.database.db, {
      accountId,
      email: "held@example.com",
      password: "a long enough password",
      role: "owner",
    });
    const signIn = await fetch(`${api.base}/console/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "held@example.com", password: "a long enough password" }),
    });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const { csrf_token } = ((await signIn.json()) as { data: { csrf_token: string } }).data;
    const runId = await queuedRun(liveKey);
    const open = await openStream(`${api.base}/console/api/live/runs/${runId}/events`, { cookie });
    expect(open.res.status).toBe(200);
    const out = await fetch(`${api.base}/console/api/session/sign-out`, {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrf_token },
    });
    expect(out.status).toBe(200);
    expect(await ended(open.res)).toBe(true);
  });

  it("when Replicate's stream and OpenAI's synchronous calls meet the caps, then each takes a place, nothing is made past them, and no answer after a run invites a retry", async () => {
    const api = await service.startApi({
      HELD_PER_KEY: "2",
      AUTH_CACHE_TTL_MS: "1000",
      SYNC_WAIT_MAX_SECONDS: "1",
    });
    const { accountId } = await service.account(1000);
    const made = (await createApiKey(service.database.db, accountId, "live", "held", 100))!;
    const auth = { authorization: `Bearer ${made.key}` };
    const runsMade = () => service.database.db.run.count({ where: { apiKeyId: made.record.id } });
    const created = await fetch(`${api.base}/api/v1/models/test/slow/run`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ input: { prompt: "streamed" } }),
    });
    const { run_id } = ((await created.json()) as { data: { run_id: string } }).data;
    const replicateStream = () => openStream(`${api.base}/replicate/v1/predictions/${run_id}/stream`, auth);

    // Replicate's stream counts against the key's cap as ours does.
    const two = await Promise.all([replicateStream(), replicateStream()]);
    expect(two.map((s) => s.res.status)).toEqual([200, 200]);
    const third = await replicateStream();
    expect(third.res.status).toBe(429);
    expect(((await third.res.json()) as { detail: string }).detail).toMatch(/API key/);

    // OpenAI's images with the key's places full: 429 before anything is made, however often the
    // official client retries.
    const openai = new OpenAI({ apiKey: made.key, baseURL: `${api.base}/openai/v1`, maxRetries: 2 });
    const before = await runsMade();
    await expect(
      openai.images.generate({ model: "acme/pixel/fast", prompt: "over the cap" }),
    ).rejects.toMatchObject({ status: 429 });
    expect(await runsMade()).toBe(before);

    // With room again, a run that does not end in time (no worker here): one 504 that tells the
    // client not to retry, so one call makes one run (canceled, charged nothing).
    for (const s of two) s.close();
    await waitFor(
      async () =>
        (await (await fetch(`${api.base}/metrics`)).text()).match(/^svc_held_connections 0$/m) ? true : null,
      { what: "the streams' places given back" },
    );
    const raw = await fetch(`${api.base}/openai/v1/images/generations`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/pixel/fast", prompt: "too slow" }),
    });
    expect(raw.status).toBe(504);
    expect(raw.headers.get("x-should-retry")).toBe("false");
    await expect(
      openai.images.generate({ model: "acme/pixel/fast", prompt: "too slow again" }),
    ).rejects.toMatchObject({ status: 504 });
    expect(await runsMade()).toBe(before + 2);

    // A revoked key's Replicate stream ends.
    const open = await replicateStream();
    expect(open.res.status).toBe(200);
    await revokeApiKey(service.database.db, made.record.id);
    expect(await ended(open.res)).toBe(true);
  });
});
