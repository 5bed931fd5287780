import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { testPng, testWav } from "./media.js";
import { preciseNow } from "./clock.js";

// An OpenAI-style media server as vLLM-Omni, SGLang's diffusion server and LocalAI serve one
// (their OpenAI-compatible routes, after openai/openai-node's resources: images.ts, videos.ts,
// audio/speech.ts): /v1/models, /v1/images/generations and /edits (b64_json), /v1/videos as a job
// (create, poll with progress, content, delete), /v1/audio/speech (the audio bytes). No such
// server can run here (no GPU, no weights); this one has a GPU's limits: one piece of work at a
// time (a second while one runs is 429, as a saturated server answers), and it takes time.

export interface FakeOpenAIServerOptions {
  /** The model name it serves (its /v1/models). */
  model?: string;
  /** Requests must carry Authorization: Bearer <apiKey> (401 otherwise). */
  apiKey?: string;
  /** Time an image, a second of video or a speech takes. */
  unitMs?: number;
  /** Images of this side instead of the size asked (benchmarks: the files' cost out of the way). */
  imageSide?: number;
  port?: number;
}

export interface ReceivedWork {
  path: string;
  /** The JSON body, or a form's fields (files as `<file name> <bytes> bytes`). */
  body: Record<string, unknown>;
  /** A form's files, by field. */
  files: Record<string, Buffer>;
}

export interface FakeOpenAIServer {
  url: string;
  received: ReceivedWork[];
  /** Images and speech made, by prompt: when the GPU took each and when its answer went. */
  work: Map<string, { startedAt: number; endedAt?: number }>;
  /** Requests answered 429 because the GPU was taken. */
  conflicts: number;
  /** Videos deleted (canceled) through DELETE /v1/videos/{id}. */
  deleted: string[];
  /** The most pieces of work it ran at once (a GPU: 1). */
  maxConcurrent: number;
  /** Its MP4 (what a video's content answers). */
  video: Buffer;
  /** Stops answering (connections refused) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

// The smallest MP4 header a reader recognises (an ftyp box): the fake's videos are these bytes.
const MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 24]),
  Buffer.from("ftypisom"),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from("isomiso2"),
  Buffer.alloc(64, 7),
]);

interface Job {
  id: string;
  model: string;
  status: "queued" | "in_progress" | "completed" | "failed";
  progress: number;
  seconds: string;
  size: string;
  prompt: string;
  created_at: number;
  timer?: NodeJS.Timeout;
}

export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const model = options.model ?? "org/model";
  const unitMs = options.unitMs ?? 50;
  const received: ReceivedWork[] = [];
  const deleted: string[] = [];
  const jobs = new Map<string, Job>();
  let busy = 0;
  let nextId = 1;
  const fake = { maxConcurrent: 0, conflicts: 0 };
  const work = new Map<string, { startedAt: number; endedAt?: number }>();

  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const error = (res: ServerResponse, status: number, message: string, type = "invalid_request_error") =>
    send(res, status, { error: { message, type, param: null, code: null } });

  /** The request's JSON, or its multipart form (what OpenAI's clients send for videos and edits). */
  async function read(
    req: IncomingMessage,
  ): Promise<{ body: Record<string, unknown>; files: Record<string, Buffer> }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const type = req.headers["content-type"] ?? "";
    if (type.startsWith("multipart/form-data")) {
      const form = await new Request("http://fake/", {
        method: "POST",
        headers: { "content-type": type },
        body: raw,
      }).formData();
      const body: Record<string, unknown> = {};
      const files: Record<string, Buffer> = {};
      for (const [name, value] of form.entries()) {
        if (typeof value === "string") body[name] = value;
        else files[name] = Buffer.from(await value.arrayBuffer());
      }
      return { body, files };
    }
    return {
      body: raw.length ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {},
      files: {},
    };
  }

  /** Holds the GPU for `ms`; false (and 429 answered) when it is taken. */
  const hold = (res: ServerResponse) => {
    if (busy > 0) {
      fake.conflicts++;
      error(res, 429, "The server is busy.", "rate_limit_error");
      return false;
    }
    busy++;
    fake.maxConcurrent = Math.max(fake.maxConcurrent, busy);
    return true;
  };
  const release = () => {
    busy = Math.max(0, busy - 1);
  };
  const after = (ms: number, res: ServerResponse) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(true), ms);
      // A client that aborts (a canceled run) frees the GPU at once.
      res.once("close", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });

  const view = (j: Job) => ({
    id: j.id,
    object: "video",
    model: j.model,
    status: j.status,
    progress: j.progress,
    created_at: j.created_at,
    completed_at: j.status === "completed" ? Math.floor(Date.now() / 1000) : null,
    expires_at: null,
    prompt: j.prompt,
    seconds: j.seconds,
    size: j.size,
    remixed_from_video_id: null,
    error: null,
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return error(res, 401, "Incorrect API key provided.", "authentication_error");
    const path = url.pathname;
    if (req.method === "GET" && path === "/v1/models")
      return send(res, 200, {
        object: "list",
        data: [{ id: model, object: "model", created: 0, owned_by: "fake" }],
      });

    if (req.method === "POST" && (path === "/v1/images/generations" || path === "/v1/images/edits")) {
      const { body, files } = await read(req);
      received.push({ path, body, files });
      if (body.model !== model) return error(res, 404, `The model ${String(body.model)} does not exist.`);
      if (path.endsWith("edits") && !files.image) return error(res, 400, "image is required");
      const n = Number(body.n ?? 1);
      const [w, h] = String(body.size ?? "64x64")
        .split("x")
        .map(Number) as [number, number];
      if (!(n >= 1 && n <= 4) || !(w > 0 && h > 0)) return error(res, 400, "invalid n or size");
      if (!hold(res)) return;
      const done = { startedAt: preciseNow() } as { startedAt: number; endedAt?: number };
      work.set(String(body.prompt), done);
      try {
        if (!(await after(unitMs * n, res))) return;
        const side = options.imageSide;
        const data = Array.from({ length: n }, (_, i) => ({
          b64_json: testPng(side ?? w, side ?? h, `${String(body.prompt)} ${i}`).toString("base64"),
        }));
        send(res, 200, { created: Math.floor(Date.now() / 1000), data });
        done.endedAt = preciseNow();
      } finally {
        release();
      }
      return;
    }

    if (req.method === "POST" && path === "/v1/audio/speech") {
      const { body, files } = await read(req);
      received.push({ path, body, files });
      if (typeof body.input !== "string" || !body.input) return error(res, 400, "input is required");
      if (!hold(res)) return;
      try {
        if (!(await after(unitMs, res))) return;
        const wav = body.response_format === "wav";
        res
          .writeHead(200, { "content-type": wav ? "audio/wav" : "audio/mpeg" })
          .end(wav ? testWav() : Buffer.concat([Buffer.from("ID3"), Buffer.alloc(64, 1)]));
      } finally {
        release();
      }
      return;
    }

    if (req.method === "POST" && path === "/v1/videos") {
      const { body, files } = await read(req);
      received.push({ path, body, files });
      if (typeof body.prompt !== "string") return error(res, 400, "prompt is required");
      if (!hold(res)) return;
      const seconds = Number(body.seconds ?? 4);
      const job: Job = {
        id: `video_${nextId++}`,
        model: String(body.model),
        status: "queued",
        progress: 0,
        seconds: String(seconds),
        size: String(body.size ?? "720x1280"),
        prompt: body.prompt,
        created_at: Math.floor(Date.now() / 1000),
      };
      jobs.set(job.id, job);
      // The job runs on the GPU a unit per second of video, its progress moving as it goes.
      let done = 0;
      job.timer = setInterval(() => {
        job.status = "in_progress";
        done++;
        job.progress = Math.min(100, Math.round((100 * done) / seconds));
        if (done >= seconds) {
          clearInterval(job.timer);
          job.status = "completed";
          release();
        }
      }, unitMs);
      return send(res, 200, view(job));
    }

    const video = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
    const job = video && jobs.get(decodeURIComponent(video[1]!));
    if (video && !job) return error(res, 404, "No such video.");
    if (job && req.method === "GET" && !video![2]) return send(res, 200, view(job));
    if (job && req.method === "GET" && video![2]) {
      if (job.status !== "completed") return error(res, 400, "The video is not ready.");
      return res
        .writeHead(200, { "content-type": "video/mp4", "content-length": String(MP4.length) })
        .end(MP4);
    }
    if (job && req.method === "DELETE") {
      if (job.status === "queued" || job.status === "in_progress") release();
      clearInterval(job.timer);
      jobs.delete(job.id);
      deleted.push(job.id);
      return send(res, 200, { id: job.id, object: "video.deleted", deleted: true });
    }
    error(res, 404, `No route ${req.method} ${path}.`);
  }

  let server: Server | undefined;
  let port = options.port ?? 0;
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        handle(req, res).catch((e: unknown) => error(res, 500, (e as Error).message, "server_error"));
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    deleted,
    work,
    get conflicts() {
      return fake.conflicts;
    },
    get maxConcurrent() {
      return fake.maxConcurrent;
    },
    video: MP4,
    stop,
    start,
    close: async () => {
      for (const j of jobs.values()) clearInterval(j.timer);
      await stop();
    },
  };
}
