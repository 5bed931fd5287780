import { randomFillSync } from "node:crypto";

export type IdPrefix =
  | "acct"
  | "key"
  | "run"
  | "wh"
  | "whd"
  | "wha"
  | "led"
  | "out"
  | "req"
  | "usr"
  | "ses"
  | "aud"
  | "file"
  | "wts"
  | "batch";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ID_LENGTH = 22; // 22 x log2(62) = 131 bits

// Random bytes are drawn from the system's CSPRNG 4 KiB at a time: one call per ~150 ids instead
// of one per id (a per-request cost on run creation). Bytes are used once and never handed out.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomByte(): number {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]!;
}

/**
 * `length` base62 characters, each uniform (bytes of 248 and above are drawn again, so that the
 * modulo does not favour the first characters): opaque, unguessable, URL-safe, never sequential.
 */
export function randomBase62(length = ID_LENGTH): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62()}`;
}

/** What an id made by newId(prefix) looks like. */
export const idPattern = (prefix: IdPrefix): RegExp => new RegExp(`^${prefix}_[0-9A-Za-z]{${ID_LENGTH}}$`);
