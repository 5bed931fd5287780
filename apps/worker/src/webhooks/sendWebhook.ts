import { request } from "undici";
import { classifyTransportError, isDeliverySuccess, type AttemptErrorClass } from "@svc/core";
import { guardedAgents, isInternalLiteral } from "@svc/net";

const RESPONSE_LIMIT = 64 * 1024;

export interface SendResult {
  statusCode: number | null;
  errorClass: AttemptErrorClass | null;
  success: boolean;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Extra CA certificates (PEM file) trusted in addition to Node's roots; TLS is always verified. */
  caFile?: string;
}

/** A POST of the exact body with the given headers; only the status code is read, never the body. */
export function webhookSender(options: SenderOptions) {
  // undici (Node's own HTTP client): connections are kept alive and reused per receiver, since a
  // TLS handshake per delivery would cost more than the delivery; a request goes out in one write.
  // The address guard runs whenever a new connection is made. Redirects are never followed.
  const agents = guardedAgents(options.caFile, { connections: 64, connectTimeoutMs: options.timeoutMs });
  const dispatcher = options.allowPrivate ? agents.plain : agents.guarded;

  return async function send(
    url: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<SendResult> {
    if (!options.allowPrivate && isInternalLiteral(new URL(url))) {
      return { statusCode: null, errorClass: "refused_address", success: false };
    }
    try {
      const response = await request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...headers },
        dispatcher,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const status = response.statusCode;
      // The body is never used, but reading it to the end keeps the connection reusable; a
      // receiver that sends more than RESPONSE_LIMIT bytes loses its connection instead.
      let received = 0;
      for await (const chunk of response.body) {
        received += (chunk as Buffer).length;
        if (received > RESPONSE_LIMIT) {
          response.body.destroy();
          break;
        }
      }
      const success = isDeliverySuccess(status);
      return {
        statusCode: status,
        errorClass: success ? null : status >= 300 && status < 400 ? "redirect" : "http_status",
        success,
      };
    } catch (error) {
      return { statusCode: null, errorClass: classifyTransportError(undiciCause(error)), success: false };
    }
  };
}

/** undici wraps some failures (a refused connection, a failed lookup) in its own errors: the cause is what tells them apart. */
function undiciCause(error: unknown): { code?: string; name?: string } {
  const e = error as { code?: string; name?: string; cause?: { code?: string; name?: string } };
  return e.cause && (e.code === undefined || e.code === "UND_ERR_SOCKET") ? e.cause : e;
}

export type WebhookSender = ReturnType<typeof webhookSender>;
