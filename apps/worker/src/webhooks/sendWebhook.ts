import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { createSecureContext, rootCertificates } from "node:tls";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import got from "got";
import {
  classifyTransportError,
  isDeliverySuccess,
  isInternalAddress,
  type AttemptErrorClass,
} from "@svc/core";

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

function refused(address: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`refusing to connect to internal address ${address}`);
  error.code = "ERR_REFUSED_ADDRESS";
  return error;
}

/**
 * dns.lookup that refuses internal addresses. It runs when the connection is made, so a host that
 * resolved to a public address at registration and to a private one now (DNS rebinding) is refused.
 */
function guardedLookup(hostname: string, options: object, callback: (...args: unknown[]) => void) {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error);
    const bad = addresses.find((a) => isInternalAddress(a.address));
    if (bad) return callback(refused(bad.address));
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** A POST of the exact body with the given headers; only the status code is read, never the body. */
export function webhookSender(options: SenderOptions) {
  // The extra CA goes in as one prebuilt secure context: given as `ca`, Node would fold the whole
  // bundle (every root certificate) into each request's connection-pool key and build a context
  // per connection, which cost more CPU than the rest of a delivery.
  const secureContext = options.caFile
    ? createSecureContext({ ca: [...rootCertificates, readFileSync(options.caFile, "utf8")] })
    : undefined;
  // Connections are kept alive and reused per receiver: a TLS handshake per delivery would cost
  // more than the delivery. The address guard runs whenever a new connection is made.
  const agent = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 64, ...(secureContext && { secureContext }) }),
  };
  const client = got.extend({
    agent,
    timeout: { request: options.timeoutMs },
    followRedirect: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    ...(!options.allowPrivate && { dnsLookup: guardedLookup as never }),
  });

  return async function send(
    url: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<SendResult> {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    // An IP literal is never looked up, so it is checked here.
    if (!options.allowPrivate && isIP(host) && isInternalAddress(host)) {
      return { statusCode: null, errorClass: "refused_address", success: false };
    }
    return new Promise<SendResult>((resolve) => {
      const stream = client.stream.post(url, { body, headers });
      stream.on("response", (response: { statusCode: number }) => {
        const status = response.statusCode;
        const success = isDeliverySuccess(status);
        resolve({
          statusCode: status,
          errorClass: success ? null : status >= 300 && status < 400 ? "redirect" : "http_status",
          success,
        });
      });
      // The body is never used, but reading it to the end keeps the connection reusable; a
      // receiver that sends more than RESPONSE_LIMIT bytes loses its connection instead.
      let received = 0;
      stream.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > RESPONSE_LIMIT) stream.destroy();
      });
      stream.on("error", (error: { code?: string; name?: string }) => {
        resolve({ statusCode: null, errorClass: classifyTransportError(error), success: false });
      });
    });
  };
}

export type WebhookSender = ReturnType<typeof webhookSender>;
