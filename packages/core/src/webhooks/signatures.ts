import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** whsec_ + base64 of 32 random bytes (the Standard Webhooks secret format). */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/**
 * The interface's X-Service-Signature: sha256= + hex HMAC-SHA256 of the raw body, keyed with the
 * whole secret string as UTF-8 (what a receiver naturally passes to its HMAC, as with GitHub).
 */
export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex")}`;
}

/** Standard Webhooks: v1, + base64 HMAC-SHA256 of "id.timestamp.body", keyed with the decoded secret. */
export function standardSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`, "utf8").digest("base64")}`;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface SignedHeaders {
  "content-type": string;
  "user-agent": string;
  "x-service-signature": string;
  "x-service-event": string;
  "x-service-delivery": string;
  "x-service-timestamp": string;
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
  "x-service-signature-previous"?: string;
}

/**
 * Every header of one delivery attempt. During a secret rotation the previous secret signs too:
 * a second v1 entry in webhook-signature (the standard allows several) and
 * X-Service-Signature-Previous, so that receivers can switch secrets without a gap.
 */
export function signDelivery(opts: {
  secrets: readonly string[];
  deliveryId: string;
  event: string;
  body: string;
  at: Date;
}): SignedHeaders {
  const [current, previous] = opts.secrets as [string, string | undefined];
  const seconds = Math.floor(opts.at.getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "model-run-service-webhooks/1",
    "x-service-signature": serviceSignature(current, opts.body),
    ...(previous && { "x-service-signature-previous": serviceSignature(previous, opts.body) }),
    "x-service-event": opts.event,
    "x-service-delivery": opts.deliveryId,
    "x-service-timestamp": String(seconds),
    "webhook-id": opts.deliveryId,
    "webhook-timestamp": String(seconds),
    "webhook-signature": opts.secrets
      .map((s) => standardSignature(s, opts.deliveryId, seconds, opts.body))
      .join(" "),
  };
}
