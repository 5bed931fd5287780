import { createHmac } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Transform } from "node:stream";
import {
  COG_TERMINAL,
  cogPredictionSchema,
  cogUploadToken,
  constantTimeEqual,
  idPattern,
  OUTPUT_NAME,
} from "@svc/core";
import type { OutputStorage } from "@svc/storage";
import type { Logger } from "@svc/logger";
import type { CogProgress } from "./progressOutputs.js";
import type { RedisCogResults } from "./results.js";

const RUN_ID = idPattern("run");

const MAX_BODY = 256 * 1024 * 1024;

/** The token in a prediction's webhook URL: HMAC of the prediction id under SECRETS_KEY. */
export function cogToken(secretsKey: Buffer, predictionId: string): string {
  return createHmac("sha256", secretsKey).update(`cog:${predictionId}`).digest("hex");
}

export function cogWebhookUrl(base: string, secretsKey: Buffer, predictionId: string): string {
  return `${base.replace(/\/$/, "")}/cog/predictions/${encodeURIComponent(predictionId)}?token=${cogToken(secretsKey, predictionId)}`;
}

/** A file name Cog gives, as a safe output name (OUTPUT_NAME), or null. */
const uploadName = (raw: string): string | null => {
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const safe = name
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(-80);
  return OUTPUT_NAME.test(safe) ? safe : null;
};

type Authorisation =
  { kind: "ok"; predictionId: string } | { kind: "refused"; status: number; error: string };

/**
 * The prediction a callback request is about, believed only with its token. The request target is
 * taken apart by hand, without throwing: the path must be /cog/predictions/<id> with a decodable
 * id, and the token is compared before anything else is read.
 */
export function authorisedPrediction(
  method: string | undefined,
  target: string,
  secretsKey: Buffer,
): Authorisation {
  const queryAt = target.indexOf("?");
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const match = /^\/cog\/predictions\/([^/]+)$/.exec(path);
  if (method !== "POST" || !match) return { kind: "refused", status: 404, error: "not found" };
  let predictionId: string;
  try {
    predictionId = decodeURIComponent(match[1]!);
  } catch {
    return { kind: "refused", status: 400, error: "malformed prediction id" };
  }
  const token = new URLSearchParams(queryAt < 0 ? "" : target.slice(queryAt + 1)).get("token") ?? "";
  if (!constantTimeEqual(token, cogToken(secretsKey, predictionId)))
    return { kind: "refused", status: 401, error: "bad token" };
  return { kind: "ok", predictionId };
}

/**
 * Receives Cog's `completed` webhooks: POST /cog/predictions/:id?token=… with the prediction object.
 * Only a request carrying the id's token is believed; terminal predictions are stored and announced.
 */
export async function startCogCallbackServer(opts: {
  host: string;
  port: number;
  secretsKey: Buffer;
  results: RedisCogResults;
  /** A prediction's logs and outputs so far, for its run's event stream (prediction id = run id). */
  progress: CogProgress;
  /** The prediction ended: its server's slot is free (prediction id = run id). */
  release(runId: string): Promise<void>;
  /** Where uploaded output files go (Cog's --upload-url), and the largest taken. */
  uploads?: { storage: OutputStorage; maxBytes: number };
  logger: Logger;
}): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: object) => {
      if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    // A client that goes away mid-body must not become an unhandled 'error' event.
    req.on("error", () => {});
    try {
      const upload = /^\/cog\/uploads\/([0-9a-f]{64})\/([^/?]+)$/.exec(req.url ?? "");
      if (upload && req.method === "PUT" && opts.uploads)
        return receiveUpload(upload[1]!, upload[2]!, req, res, reply);
      const id = authorisedPrediction(req.method, req.url ?? "", opts.secretsKey);
      if (id.kind !== "ok") return reply(id.status, { error: id.error });
      receive(id.predictionId, req, reply);
    } catch (error) {
      // Nothing from outside may end the worker: whatever slipped past the checks is a bad request.
      opts.logger.warn("cog callback request refused", { error });
      reply(400, { error: "bad request" });
    }
  });

  /**
   * PUT /cog/uploads/<token>/<name>: an output file a Cog server uploads (--upload-url), streamed
   * into the output store; the answer's Location (our URL of it) becomes the prediction's output,
   * so large files never travel as base64 in a webhook. Past the size limit, nothing is kept.
   */
  function receiveUpload(
    token: string,
    rawName: string,
    req: IncomingMessage,
    res: ServerResponse,
    reply: (status: number, body: object) => void,
  ): void {
    const uploads = opts.uploads!;
    if (!constantTimeEqual(token, cogUploadToken(opts.secretsKey))) return reply(401, { error: "bad token" });
    const name = uploadName(rawName);
    if (!name) return reply(400, { error: "bad file name" });
    if (Number(req.headers["content-length"] ?? 0) > uploads.maxBytes)
      return reply(413, { error: "too large" });
    let size = 0;
    const limited = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > uploads.maxBytes ? new Error("too large") : null, chunk);
      },
    });
    // Cog names the prediction (our run id) it uploads for: its files are then that run's own.
    const prediction = req.headers["x-prediction-id"];
    const files = uploads.storage(
      typeof prediction === "string" && RUN_ID.test(prediction) ? prediction : null,
    );
    files
      .save(name, req.pipe(limited))
      .then((url) => {
        res.setHeader("location", url);
        reply(201, { url });
      })
      .catch((error: unknown) => {
        opts.logger.warn("cog upload refused", { error: (error as Error).message });
        reply(size > uploads.maxBytes ? 413 : 400, { error: "upload failed" });
      });
  }

  function receive(id: string, req: IncomingMessage, reply: (status: number, body: object) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", async () => {
      let prediction;
      try {
        prediction = cogPredictionSchema.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        return reply(400, { error: "not a prediction object" });
      }
      try {
        if (COG_TERMINAL.has(prediction.status)) {
          opts.logger.debug("cog prediction ended", {
            run_id: id,
            at: performance.timeOrigin + performance.now(),
          });
          // The slot first, the result once the next run's prediction is on its way: storing a
          // prediction (its outputs as data URLs, serialized) would hold up the release's answer.
          await opts
            .release(id)
            .catch((error: unknown) => opts.logger.warn("slot release failed", { run_id: id, error }));
          opts.progress.ended(id);
          await opts.results.store(id, prediction);
        } else if (prediction.status === "processing") {
          const report = {
            ...(typeof prediction.logs === "string" &&
              prediction.logs && { logs: prediction.logs.slice(-8_192) }),
            ...(prediction.output !== undefined &&
              prediction.output !== null && { output: prediction.output }),
          };
          // Answered once decided: Cog sends the next report after this one's answer, so a run's
          // reports keep their order, and their files are ours before anyone sees them.
          if (Object.keys(report).length) await opts.progress.report(id, report);
        }
        reply(200, { ok: true });
      } catch (error) {
        opts.logger.error("cog callback could not be stored", { prediction_id: id, error });
        reply(503, { error: "try again" });
      }
    });
  }
  server.listen(opts.port, opts.host);
  await once(server, "listening");
  return server;
}
