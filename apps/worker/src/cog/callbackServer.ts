import { createHmac } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { COG_TERMINAL, cogPredictionSchema, constantTimeEqual } from "@svc/core";
import type { Logger } from "@svc/logger";
import type { RedisCogResults } from "./results.js";

const MAX_BODY = 256 * 1024 * 1024;

/** The token in a prediction's webhook URL: HMAC of the prediction id under SECRETS_KEY. */
export function cogToken(secretsKey: Buffer, predictionId: string): string {
  return createHmac("sha256", secretsKey).update(`cog:${predictionId}`).digest("hex");
}

export function cogWebhookUrl(base: string, secretsKey: Buffer, predictionId: string): string {
  return `${base.replace(/\/$/, "")}/cog/predictions/${encodeURIComponent(predictionId)}?token=${cogToken(secretsKey, predictionId)}`;
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
  logger: Logger;
}): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: object) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const url = new URL(req.url ?? "/", "http://callback");
    const match = /^\/cog\/predictions\/([^/]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !match) return reply(404, { error: "not found" });
    const id = decodeURIComponent(match[1]!);
    if (!constantTimeEqual(url.searchParams.get("token") ?? "", cogToken(opts.secretsKey, id)))
      return reply(401, { error: "bad token" });
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
        if (COG_TERMINAL.has(prediction.status)) await opts.results.store(id, prediction);
        reply(200, { ok: true });
      } catch (error) {
        opts.logger.error("cog callback could not be stored", {
          prediction_id: id,
          error: (error as Error).message,
        });
        reply(503, { error: "try again" });
      }
    });
  });
  server.listen(opts.port, opts.host);
  await once(server, "listening");
  return server;
}
