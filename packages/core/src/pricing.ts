import { z } from "zod";

// How a model is priced: tokens_per_unit x units, where units come from one input field
// (e.g. num_images, duration_seconds) or are 1 per run when units_from is absent.
/**
 * The most a model may cost per unit: a run's reservation (price x units) must stay within a token
 * column's range (MAX_TOKENS) for any input a schema allows.
 */
export const MODEL_PRICE_MAX = 1_000_000;

export const pricingSchema = z.strictObject({
  unit: z.string().min(1),
  tokens_per_unit: z.int().min(0).max(MODEL_PRICE_MAX),
  units_from: z.string().min(1).optional(),
  /**
   * A surcharge per LoRA a run applies, per unit (personal weights): a run of k LoRAs costs
   * tokens_per_unit + k x tokens_per_lora per unit, never more than MODEL_PRICE_MAX per unit.
   */
  tokens_per_lora: z.int().min(0).max(MODEL_PRICE_MAX).optional(),
  /** The percent off for items of a batch (BATCH_DISCOUNT_PERCENT when absent). */
  batch_discount_percent: z.int().min(0).max(100).optional(),
});

export type Pricing = z.infer<typeof pricingSchema>;

/** Units a run asks for: the pricing field of the (defaults-applied) input, rounded up, at least 1. */
export function unitsRequested(pricing: Pricing, input: Record<string, unknown>): number {
  if (!pricing.units_from) return 1;
  const value = input[pricing.units_from];
  return typeof value === "number" && Number.isFinite(value) ? Math.max(1, Math.ceil(value)) : 1;
}

export function tokensFor(pricing: Pricing, units: number, loras = 0): number {
  const perUnit = pricing.tokens_per_unit + loras * (pricing.tokens_per_lora ?? 0);
  return Math.min(MODEL_PRICE_MAX, perUnit) * units;
}

/** How many LoRAs a run's (validated) input applies. */
export const lorasIn = (input: Record<string, unknown>): number =>
  Array.isArray(input.loras) ? input.loras.length : 0;

/** The estimate shown on a model: the price of a run with the schema's default input. */
export function defaultEstimate(
  pricing: Pricing,
  inputSchema: { properties?: Record<string, unknown> },
): number {
  const field = pricing.units_from ? inputSchema.properties?.[pricing.units_from] : undefined;
  const fallback = field && typeof field === "object" ? (field as { default?: unknown }).default : undefined;
  return tokensFor(
    pricing,
    unitsRequested(pricing, pricing.units_from ? { [pricing.units_from]: fallback } : {}),
  );
}

/** What a run's price rests on, fixed when it was made and reserved. */
export interface RunPrice {
  /** The model's price for the units it asked for, as it was at creation (tokensFor). */
  estimatedTokens: number;
  unitsRequested: number;
  /** Reserved for it (0 for a test run, or once settled). */
  reservedTokens: number;
}

/**
 * What a run is charged for `units` made or delivered: at its own price per unit (its estimate
 * over the units it asked for, so a price changed since does not reach it, whichever way it ends),
 * never more than was reserved. Test runs reserve 0, so they are always charged 0.
 */
export function runCharge(run: RunPrice, units: number): number {
  const perUnit = run.estimatedTokens / Math.max(1, run.unitsRequested);
  return Math.min(Math.round(perUnit * Math.max(0, units)), run.reservedTokens);
}

/** What a model's outputs are counted in: an image generator's unit is one file, others' a whole file. */
export type OutputKind = "image" | "video" | "audio" | "echo";

/** Every file an output refers to: data: URLs and http(s) URLs, in order, at any depth. */
export function fileReferences(output: unknown): string[] {
  if (typeof output === "string") return /^(data:|https?:\/\/)/.test(output) ? [output] : [];
  if (Array.isArray(output)) return output.flatMap(fileReferences);
  if (output && typeof output === "object") return Object.values(output).flatMap(fileReferences);
  return [];
}

/**
 * The units whose outputs a client already holds once it has seen `output` (a progress report's
 * output so far): one per image file; for a video or an audio track, the one file is the whole
 * run. A canceled run is charged for these, since their files stay reachable.
 */
export function unitsDelivered(kind: OutputKind, output: unknown, unitsRequested: number): number {
  const files = fileReferences(output).length;
  if (!files) return 0;
  return Math.min(unitsRequested, kind === "image" ? files : unitsRequested);
}

/**
 * The units a finished run made, which its charge is for: what its output delivers (one per image
 * file; a video or an audio track is the whole run), or, for an output of no files (the echo),
 * the run as asked. Decided here for every kind: runners report their output, never its units.
 */
export function unitsProduced(kind: OutputKind, output: unknown, unitsRequested: number): number {
  return kind === "echo" ? unitsRequested : unitsDelivered(kind, output, unitsRequested);
}
