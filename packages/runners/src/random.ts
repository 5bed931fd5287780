import { createHash } from "node:crypto";

/** A 32-bit seed from any text, so that the same input always gives the same output. */
export function seedFrom(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

/** mulberry32: small, fast, deterministic PRNG in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function inputSeed(input: Record<string, unknown>): number {
  return typeof input.seed === "number" ? input.seed >>> 0 : seedFrom(String(input.prompt ?? ""));
}

/** A colour per word of the prompt: the same word always paints the same colour. */
export function wordColours(prompt: string): [number, number, number][] {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? ["empty"];
  return words.slice(0, 12).map((w) => {
    const h = seedFrom(w);
    return [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff];
  });
}
