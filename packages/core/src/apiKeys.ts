import { createHash, randomBytes } from "node:crypto";

export type Mode = "live" | "test";

// svc_live_ / svc_test_ followed by 32 random bytes in base64url (43 characters).
const KEY_PATTERN = /^svc_(live|test)_([A-Za-z0-9_-]{43})$/;

export interface GeneratedApiKey {
  key: string;
  mode: Mode;
  prefix: string;
  hash: string;
}

export function hashApiKey(key: string): string {
  // The secret carries 256 bits of entropy, so a fast hash is enough: there is nothing to brute-force.
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function generateApiKey(mode: Mode): GeneratedApiKey {
  const key = `svc_${mode}_${randomBytes(32).toString("base64url")}`;
  return { key, mode, prefix: displayPrefix(key), hash: hashApiKey(key) };
}

export function displayPrefix(key: string): string {
  return `${key.slice(0, "svc_live_".length + 4)}…`;
}

/** The mode of a well-formed key, or null when the text cannot be a key at all. */
export function parseApiKeyMode(key: string): Mode | null {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as Mode) : null;
}

/** The key from an Authorization header value, or null when the header is not `Bearer <token>`. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match ? match[1]! : null;
}
