import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { loraCache, type LoraCacheOptions } from "./fakeLoras.js";
import { renderImage } from "@svc/runners";
import { preciseNow } from "./clock.js";

// A stand-in for a Cog model container (replicate/cog), which cannot run here (no GPU, no
// Docker). It speaks Cog's documented HTTP API: GET /health-check, GET /openapi.json,
// PUT /predictions/{id} (idempotent; Prefer: respond-async -> 202), POST /predictions (with the id
// in the body; synchronous without Prefer: answered at the prediction's end, and canceled if its
// connection drops, as coglet's sync guard does), POST /predictions/{id}/cancel, 409 when every
// slot is busy, and webhooks (`output`, `completed`) as the request's webhook_events_filter asks,
// with the prediction object. Like Cog,
// it downloads each input given as a URL before the model runs (a failed download fails the
// prediction), and records what it got.
export type CogHealth = "STARTING" | "READY" | "BUSY" | "SETUP_FAILED" | "DEFUNCT" | "UNHEALTHY";

export interface FakeCogBehaviour {
  delayMs: number;
  /** Fails the prediction with this error text instead of succeeding. */
  fail?: string;
  /** Ends the prediction as canceled by the server itself. */
  serverCancels?: boolean;
  /** Returns outputs as URLs served by this server (as with Cog's --upload-url) instead of data URLs. */
  outputAsUrl?: boolean;
  /** Returns one video of this many bytes, served by this server and made as it is read. */
  videoBytes?: number;
  /** Answers the PUT that starts a prediction this much later (it is started, the caller not told yet). */
  startReplyDelayMs?: number;
  /** Serves every output file but the first this much later (a slow upload bucket). */
  laterOutputsDelayMs?: number;
  /** The side of the images it makes, whatever the input asks (benchmarks: a GPU's output costs this host nothing). */
  imageSide?: number;
  /**
   * Inputs that are LoRA URLs (cog-flux style: lora_weights, extra_lora): loaded as such models
   * load them (fakeLoras.ts: a cache of `loras.size` URLs, a load costing `loras.msPerMiB` per
   * MiB); a file that is not safetensors fails the prediction.
   */
  loraFields?: string[];
  loras?: LoraCacheOptions;
}

interface Prediction {
  id: string;
  input: Record<string, unknown>;
  status: "processing" | "succeeded" | "failed" | "canceled";
  webhook?: string;
  /** Which webhooks it sends (webhook_events_filter; Cog's default: all). */
  events: string[];
  /** A synchronous prediction's answer, sent at its end. */
  answer?: (p: Prediction) => void;
  timer?: NodeJS.Timeout;
  output?: unknown;
  error?: string;
  /** When the model started and stopped working on it (ms, sub-millisecond precision). */
  startedAt: number;
  endedAt?: number;
}

export interface FakeCog {
  url: string;
  health: CogHealth;
  behaviour: FakeCogBehaviour;
  /**
   * Every request that starts a prediction (PUT, or POST: `sync` when answered at its end), with
   * whether it started a new one (false: a PUT re-attached to a running one).
   */
  puts: {
    id: string;
    started: boolean;
    input: Record<string, unknown>;
    prefer: string | undefined;
    sync: boolean;
  }[];
  cancels: string[];
  /** PUTs refused with 409 because every slot was busy. */
  conflicts: number;
  healthChecks: number;
  /** Output files PUT to --upload-url: the status answered and the Location. */
  uploads: { status: number; location: string | null }[];
  predictions: Map<string, Prediction>;
  /** Each LoRA a prediction named: its URL, and whether the server had it loaded already. */
  loras: { id: string; url: string; hit: boolean }[];
  /** Each input URL it downloaded: the prediction, the field, the answer's status, type and bytes. */
  fetched: { id: string; field: string; url: string; status: number; contentType: string; bytes: Buffer }[];
  /**
   * The gaps between one prediction's end and the next one's start (ms) while a slot was free, in
   * order: how long the "GPU" sat idle. Only gaps after which a prediction started are counted;
   * `among`: only these predictions (those of a burst, while runs wait).
   */
  idleGaps(among?: ReadonlySet<string>): number[];
  /** Ends a running prediction now, as its delay would: a test decides when, not a timer. */
  finish(id: string): void;
  /**
   * Sends an `output` webhook of a running prediction with its first `count` outputs, as Cog does
   * for a model that yields its outputs one by one; resolves once the receiver answered.
   */
  yieldOutputs(id: string, count: number): Promise<number>;
  /** Stops answering at once, like a crashed container: no webhook is ever sent. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

export const FAKE_COG_OPENAPI = {
  openapi: "3.0.2",
  info: { title: "Cog", version: "0.1.0" },
  paths: {},
  components: {
    schemas: {
      Input: {
        title: "Input",
        type: "object",
        required: ["prompt"],
        properties: {
          prompt: { title: "Prompt", type: "string", description: "Input prompt", "x-order": 0 },
          width: {
            title: "Width",
            type: "integer",
            default: 512,
            minimum: 64,
            maximum: 2048,
            description: "Output width",
            "x-order": 1,
          },
          height: {
            title: "Height",
            type: "integer",
            default: 512,
            minimum: 64,
            maximum: 2048,
            description: "Output height",
            "x-order": 2,
          },
          num_outputs: {
            title: "Num Outputs",
            type: "integer",
            default: 1,
            minimum: 1,
            maximum: 4,
            description: "Number of images",
            "x-order": 3,
          },
          scheduler: {
            allOf: [{ $ref: "#/components/schemas/scheduler" }],
            default: "DDIM",
            description: "Sampler",
            "x-order": 4,
          },
        },
      },
      scheduler: {
        title: "scheduler",
        description: "An enumeration.",
        enum: ["DDIM", "K_EULER"],
        type: "string",
      },
      Output: { title: "Output", type: "array", items: { type: "string", format: "uri" } },
    },
  },
};

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
}

export async function startFakeCog(
  opts: {
    concurrency?: number;
    health?: CogHealth;
    behaviour?: FakeCogBehaviour;
    /** false: /health-check says READY even with every slot taken (a stale answer), so PUTs meet 409. */
    reportsBusy?: boolean;
    /** Cog's --upload-url: output files are PUT there, and the Locations answered are the output. */
    uploadUrl?: string;
  } = {},
): Promise<FakeCog> {
  const concurrency = opts.concurrency ?? 1;
  const running = () => [...cog.predictions.values()].filter((p) => p.status === "processing").length;
  const view = (p: Prediction) => ({
    id: p.id,
    input: p.input,
    status: p.status,
    output: p.output ?? null,
    error: p.error ?? null,
  });
  // Like Cog, a terminal webhook is retried (here up to 20 times, 250 ms apart) until it gets a 2xx.
  const notify = (p: Prediction) => {
    p.answer?.(p);
    if (!p.webhook || !p.events.includes("completed")) return;
    const body = JSON.stringify(view(p));
    void (async () => {
      for (let attempt = 0; attempt < 20 && server.listening; attempt++) {
        try {
          const res = await fetch(p.webhook!, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          if (res.ok) return;
        } catch {
          // connection refused: the receiver may be restarting
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
  };
  /** The prediction's whole output, as the model makes it. */
  const outputOf = (p: Prediction): unknown => {
    if (cog.behaviour.videoBytes !== undefined) return `${cog.url}/outputs/${p.id}/video.mp4`;
    const count = Number(p.input.num_outputs ?? 1);
    if (cog.behaviour.outputAsUrl)
      return Array.from({ length: count }, (_, i) => `${cog.url}/outputs/${p.id}/${i}.png`);
    const width = cog.behaviour.imageSide ?? Number(p.input.width ?? 512);
    const height = cog.behaviour.imageSide ?? Number(p.input.height ?? 512);
    return Array.from(
      { length: count },
      (_, i) =>
        `data:image/png;base64,${renderImage(String(p.input.prompt), width, height, i).toString("base64")}`,
    );
  };
  const now = preciseNow;
  let loras: ReturnType<typeof loraCache> | undefined;
  /** A LoRA input: from the cache, or downloaded, checked and loaded (its cost added to the prediction). */
  const loadLora = async (p: Prediction, url: string): Promise<string | undefined> => {
    const { hit, failure } = await (loras ??= loraCache(cog.behaviour.loras)).load(url);
    cog.loras.push({ id: p.id, url, hit });
    return failure;
  };
  /** Cog's input preparation: every URL input fetched before predict(); the failure, if any. */
  const download = async (p: Prediction): Promise<string | undefined> => {
    for (const [field, value] of Object.entries(p.input ?? {})) {
      if (typeof value !== "string" || !/^https?:\/\//.test(value)) continue;
      if (cog.behaviour.loraFields?.includes(field)) {
        const failure = await loadLora(p, value);
        if (failure) return failure;
        continue;
      }
      try {
        const res = await fetch(value);
        const bytes = Buffer.from(await res.arrayBuffer());
        const contentType = res.headers.get("content-type") ?? "";
        cog.fetched.push({ id: p.id, field, url: value, status: res.status, contentType, bytes });
        if (!res.ok) return `failed to download input ${field}: HTTP ${res.status}`;
      } catch (error) {
        return `failed to download input ${field}: ${(error as Error).message}`;
      }
    }
    return undefined;
  };
  /**
   * A server started with --upload-url PUTs each output file to it, named, and gives the answer's
   * Location as the output instead of a data URL.
   */
  const uploaded = async (output: unknown, predictionId: string): Promise<unknown> => {
    const urls = Array.isArray(output) ? output : [output];
    const answers = await Promise.all(
      urls.map(async (url, i) => {
        const match = typeof url === "string" ? /^data:([^;]+);base64,(.*)$/.exec(url) : null;
        if (!match) return { url, upload: null };
        const res = await fetch(`${opts.uploadUrl}output-${i}.png`, {
          method: "PUT",
          // As Cog's uploader does (cog/server/clients.py, coglet): the prediction it uploads for.
          headers: { "content-type": match[1]!, "x-prediction-id": predictionId },
          body: Buffer.from(match[2]!, "base64"),
        });
        const upload = { status: res.status, location: res.headers.get("location") };
        return { url: upload.location ?? url, upload };
      }),
    );
    // Recorded in the output's order, whichever upload answered first.
    for (const { upload } of answers) if (upload) cog.uploads.push(upload);
    const located = answers.map((a) => a.url);
    return Array.isArray(output) ? located : located[0];
  };
  const finish = (p: Prediction) => {
    if (p.status !== "processing") return;
    if (cog.behaviour.fail) {
      p.status = "failed";
      p.error = cog.behaviour.fail;
    } else if (cog.behaviour.serverCancels) {
      p.status = "canceled";
    } else if (opts.uploadUrl) {
      // Uploading takes a moment: the prediction ends once its files are uploaded.
      const output = outputOf(p);
      p.status = "uploading" as never;
      void uploaded(output, p.id).then((located) => {
        p.status = "succeeded";
        p.output = located;
        p.endedAt = now();
        notify(p);
      });
      return;
    } else {
      p.status = "succeeded";
      p.output = outputOf(p);
    }
    // The model has stopped working on it once its output is made: the slot is free from here.
    p.endedAt = now();
    notify(p);
  };

  const cancelPrediction = (p: Prediction) => {
    if (p.status !== "processing") return;
    clearTimeout(p.timer);
    p.endedAt = now();
    p.status = "canceled";
    notify(p);
  };

  const server: Server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const path = new URL(req.url ?? "/", "http://cog").pathname;
    if (req.method === "GET" && path === "/health-check") {
      cog.healthChecks++;
      const status =
        cog.health === "READY" && running() >= concurrency && opts.reportsBusy !== false
          ? "BUSY"
          : cog.health;
      return reply(200, { status, setup: { status: cog.health === "STARTING" ? "starting" : "succeeded" } });
    }
    if (req.method === "GET" && path === "/openapi.json") return reply(200, FAKE_COG_OPENAPI);
    const file = /^\/outputs\/([^/]+)\/(\d+)\.png$/.exec(path);
    if (req.method === "GET" && file) {
      const p = cog.predictions.get(decodeURIComponent(file[1]!));
      if (!p) return reply(404, { detail: "Not Found" });
      const png = renderImage(
        String(p.input.prompt),
        Number(p.input.width ?? 512),
        Number(p.input.height ?? 512),
        Number(file[2]),
      );
      const later = Number(file[2]) > 0 ? (cog.behaviour.laterOutputsDelayMs ?? 0) : 0;
      const send = () => void res.writeHead(200, { "content-type": "image/png" }).end(png);
      if (later) return void setTimeout(send, later);
      return send();
    }
    if (req.method === "GET" && /^\/outputs\/[^/]+\/video\.mp4$/.test(path)) {
      const size = cog.behaviour.videoBytes ?? 0;
      res.writeHead(200, { "content-type": "video/mp4", "content-length": String(size) });
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let sent = 0;
      const more = () => {
        while (sent < size) {
          const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
          sent += piece.length;
          if (!res.write(piece)) return void res.once("drain", more);
        }
        res.end();
      };
      res.on("error", () => {});
      return more();
    }
    const put = /^\/predictions\/([^/]+)$/.exec(path);
    const post = req.method === "POST" && path === "/predictions";
    if ((req.method === "PUT" && put) || post) {
      const body = await readJson(req);
      const id = put ? decodeURIComponent(put[1]!) : String(body.id ?? `pred_${Date.now().toString(16)}`);
      const prefer = req.headers.prefer as string | undefined;
      const existing = cog.predictions.get(id);
      // Only the idempotent PUT answers a running prediction again (routes.rs).
      if (put && existing?.status === "processing") {
        cog.puts.push({ id, started: false, input: existing.input, prefer, sync: false });
        return reply(202, view(existing));
      }
      // Cog's Rust server (routes.rs): 503 while it cannot run anything (setup not done or
      // failed, defunct, unhealthy), 409 while every slot is busy, 422 for an input its schema
      // refuses (a field of the wrong type, as pydantic reports it).
      if (cog.health !== "READY") return reply(503, { detail: `Server is not ready: ${cog.health}` });
      if (running() >= concurrency) {
        cog.conflicts++;
        return reply(409, { detail: "Already running a prediction" });
      }
      const input = (body.input ?? {}) as Record<string, unknown>;
      if (input.num_outputs !== undefined && !Number.isInteger(input.num_outputs))
        return reply(422, {
          detail: [
            {
              loc: ["body", "input", "num_outputs"],
              msg: "Input should be a valid integer",
              type: "int_parsing",
            },
          ],
        });
      const sync = post && prefer !== "respond-async";
      const p: Prediction = {
        id,
        input: body.input as Record<string, unknown>,
        status: "processing",
        webhook: body.webhook as string | undefined,
        events: (body.webhook_events_filter as string[] | undefined) ?? [
          "start",
          "output",
          "logs",
          "completed",
        ],
        startedAt: now(),
        ...(sync && { answer: (ended: Prediction) => reply(200, view(ended)) }),
      };
      cog.predictions.set(id, p);
      cog.puts.push({ id, started: true, input: p.input, prefer, sync });
      if (sync)
        // coglet's sync guard: a synchronous prediction whose client goes away is canceled.
        res.once("close", () => {
          if (p.status === "processing" && !res.writableEnded) cancelPrediction(p);
        });
      void download(p).then((failure) => {
        if (p.status !== "processing") return;
        if (!failure) return void (p.timer = setTimeout(() => finish(p), cog.behaviour.delayMs));
        p.status = "failed";
        p.error = failure;
        p.endedAt = now();
        notify(p);
      });
      if (sync) return;
      if (cog.behaviour.startReplyDelayMs)
        await new Promise((r) => setTimeout(r, cog.behaviour.startReplyDelayMs));
      return reply(202, { ...view(p), status: "starting" });
    }
    const cancel = /^\/predictions\/([^/]+)\/cancel$/.exec(path);
    if (req.method === "POST" && cancel) {
      const id = decodeURIComponent(cancel[1]!);
      cog.cancels.push(id);
      const p = cog.predictions.get(id);
      if (!p) return reply(404, { detail: "Not found" });
      cancelPrediction(p);
      return reply(200, {});
    }
    reply(404, { detail: "Not Found" });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");

  const stop = async () => {
    for (const p of cog.predictions.values()) clearTimeout(p.timer);
    if (!server.listening) return;
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  };
  const cog: FakeCog = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    health: opts.health ?? "READY",
    behaviour: opts.behaviour ?? { delayMs: 300 },
    puts: [],
    cancels: [],
    conflicts: 0,
    healthChecks: 0,
    uploads: [],
    predictions: new Map(),
    fetched: [],
    loras: [],
    idleGaps(among) {
      // With `concurrency` slots, the k-th start after the first `concurrency` follows the k-th end.
      const chosen = [...cog.predictions.values()].filter((p) => !among || among.has(p.id));
      const starts = chosen.map((p) => p.startedAt).sort((a, b) => a - b);
      const ends = chosen.flatMap((p) => (p.endedAt === undefined ? [] : [p.endedAt])).sort((a, b) => a - b);
      const gaps: number[] = [];
      for (let k = concurrency; k < starts.length && k - concurrency < ends.length; k++)
        gaps.push(Math.max(0, starts[k]! - ends[k - concurrency]!));
      return gaps;
    },
    finish(id) {
      const p = cog.predictions.get(id);
      if (!p) throw new Error(`no prediction ${id}`);
      clearTimeout(p.timer);
      finish(p);
    },
    async yieldOutputs(id, count) {
      const p = cog.predictions.get(id);
      if (!p || p.status !== "processing") throw new Error(`no running prediction ${id}`);
      const whole = outputOf(p);
      p.output = Array.isArray(whole) ? whole.slice(0, count) : whole;
      const res = await fetch(p.webhook!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(view(p)),
      });
      return res.status;
    },
    kill: stop,
    close: stop,
  };
  return cog;
}
