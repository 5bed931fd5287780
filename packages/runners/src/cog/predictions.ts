// The requests that hand a Cog server a prediction, in both of Cog's ways (routes.rs): PUT
// /predictions/{id} with Prefer: respond-async (answered at once; the end comes by webhook), and
// POST /predictions with our id and no Prefer header (answered at the prediction's end), and the
// cancel. Each says whether it was the server's fault (another server may do), the input's, or
// the server was busy.
import { request } from "undici";
import { cogPredictionSchema, type CogPrediction, type CogRunnerSettings } from "@svc/core";
import { sendServerWork } from "@svc/net";
import { RunnerError } from "../runner.js";
import { modelServers } from "../servers.js";

export class ServerUnavailable extends Error {}

/** 503: the server cannot run anything now (setup not done or failed, defunct): not the run's fault. */
export class ServerNotReady extends Error {}

/** Where the server reports a prediction's progress (and, for an asynchronous one, its end). */
type Webhooks = { webhookUrl(predictionId: string): string };

/** The answer's status as the run's or the server's failure; "busy" for 409 (every slot taken). */
function refusal(server: string, status: number, body: string): "busy" | undefined {
  if (status === 409) return "busy";
  if (status === 503) throw new ServerNotReady(`${server} is not ready`);
  if (status >= 500) throw new ServerUnavailable(`${server} answered ${status}`);
  if (status >= 400)
    throw new RunnerError("INVALID_INPUT", `the model refused the input: ${body.slice(0, 500)}`);
  return undefined;
}

/** Starts (or re-attaches to) an asynchronous prediction; false when the server is busy (409). */
export async function sendPrediction(
  deps: Webhooks,
  s: CogRunnerSettings,
  server: string,
  id: string,
  input: Record<string, unknown>,
): Promise<boolean> {
  // This request is what a freed server waits for: sent at once (@svc/net's sendServerWork).
  const { status, body } = await sendServerWork(
    new URL(`predictions/${encodeURIComponent(id)}`, `${server}/`),
    {
      method: "PUT",
      headers: { prefer: "respond-async", "content-type": "application/json" },
      body: JSON.stringify({
        id,
        input,
        webhook: deps.webhookUrl(id),
        webhook_events_filter: ["output", "logs", "completed"],
      }),
      idleTimeoutMs: s.request_timeout_ms,
    },
  ).catch((error: unknown) => {
    throw new ServerUnavailable(`${server}: ${(error as Error).message}`);
  });
  return refusal(server, status, body) !== "busy";
}

/**
 * A synchronous prediction: its end, answered on this request, or "busy". Its logs and outputs so
 * far still come by webhook (Cog sends them for any prediction given one); its end does not, so
 * no receiver, no Redis and no other worker stand between the answer and the run. Aborting the
 * request (a cancel, the run's deadline) drops the connection, which makes Cog cancel it.
 */
export async function syncPrediction(
  deps: Webhooks,
  server: string,
  id: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CogPrediction | "busy"> {
  const { status, body } = await sendServerWork(new URL("predictions", `${server}/`), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id,
      input,
      webhook: deps.webhookUrl(id),
      webhook_events_filter: ["output", "logs"],
    }),
    // As long as the prediction takes: the run's deadline (the signal) and the health watchdog
    // bound it, as they bound the wait for an asynchronous one's webhook.
    idleTimeoutMs: 0,
    signal,
  }).catch((error: unknown) => {
    signal.throwIfAborted();
    throw new ServerUnavailable(`${server}: ${(error as Error).message}`);
  });
  if (refusal(server, status, body)) return "busy";
  try {
    return cogPredictionSchema.parse(JSON.parse(body));
  } catch {
    throw new ServerUnavailable(`${server} answered ${status} without a prediction`);
  }
}

export async function cancelPrediction(s: CogRunnerSettings, server: string, id: string) {
  await request(new URL(`predictions/${encodeURIComponent(id)}/cancel`, `${server}/`), {
    method: "POST",
    dispatcher: modelServers,
    headersTimeout: s.request_timeout_ms,
    bodyTimeout: s.request_timeout_ms,
  })
    .then((res) => res.body.dump())
    .catch(() => {});
}
