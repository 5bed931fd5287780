import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./errors.js";
import type { WebhookEvent } from "./types.js";

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === "function")
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const value =
    (headers as Record<string, string | string[] | undefined>)[name] ??
    (headers as Record<string, string | string[] | undefined>)[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface VerifyOptions {
  /** The raw request body, exactly as received (string or bytes), not a re-serialised object. */
  body: string | Uint8Array;
  headers: Headers;
  /** The endpoint's signing secret (whsec_…), or several during a rotation. */
  secret: string | string[];
  /** Oldest webhook-timestamp accepted, in seconds (replays outside it are refused). Default 300. */
  toleranceSeconds?: number;
  now?: Date;
}

/**
 * Verifies a delivery and returns its event. When the Standard Webhooks headers are present, their
 * signature (over id.timestamp.body) and the timestamp tolerance are checked, which also stops
 * replays; X-Service-Signature (sha256=HMAC of the body) must match too when present. Every
 * comparison is constant-time. Throws WebhookVerificationError on any mismatch.
 */
export function verifyWebhook(o: VerifyOptions): WebhookEvent {
  const body = typeof o.body === "string" ? o.body : Buffer.from(o.body).toString("utf8");
  const secrets = Array.isArray(o.secret) ? o.secret : [o.secret];
  const serviceSignature = header(o.headers, "x-service-signature");
  const id = header(o.headers, "webhook-id");
  const timestamp = header(o.headers, "webhook-timestamp");
  const standard = header(o.headers, "webhook-signature");
  if (!serviceSignature && !standard) throw new WebhookVerificationError("no signature headers");

  if (standard) {
    if (!id || !timestamp || !/^\d+$/.test(timestamp))
      throw new WebhookVerificationError("missing webhook-id or webhook-timestamp");
    const age = Math.abs((o.now ?? new Date()).getTime() / 1000 - Number(timestamp));
    if (age > (o.toleranceSeconds ?? 300))
      throw new WebhookVerificationError("webhook-timestamp outside the tolerance (replayed or delayed)");
    const given = standard.split(" ").map((s) => s.replace(/^v1,/, ""));
    const ok = secrets.some((secret) => {
      const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
      const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
      return given.some((g) => equal(g, expected));
    });
    if (!ok) throw new WebhookVerificationError("webhook-signature does not match");
  }
  if (serviceSignature) {
    // During a rotation the previous secret's signature comes in X-Service-Signature-Previous.
    const given = [serviceSignature, header(o.headers, "x-service-signature-previous")].filter(
      (g): g is string => !!g,
    );
    const ok = secrets.some((secret) => {
      const expected = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      return given.some((g) => equal(g, expected));
    });
    if (!ok) throw new WebhookVerificationError("X-Service-Signature does not match");
  }
  return JSON.parse(body) as WebhookEvent;
}
