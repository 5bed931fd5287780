import { randomBytes } from "node:crypto";

export type IdPrefix = "acct" | "key" | "run" | "wh" | "whd" | "wha" | "led" | "out" | "req";

// 16 random bytes (128 bits) in base62: opaque, unguessable, URL-safe, never sequential.
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function randomBase62(bytes = 16): string {
  let n = BigInt(`0x${randomBytes(bytes).toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes * 8) / Math.log2(62)), "0");
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62()}`;
}
