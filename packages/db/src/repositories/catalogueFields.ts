import { pricingSchema, runnerSchema, type Pricing, type RunnerSettings } from "@svc/core";

// A model's pricing and runner are JSON columns: they are parsed here, where they leave the
// database, and every caller gets typed values. A parse is kept per distinct value (the catalogue
// has few), so the hot path (a start per run) pays a lookup, not a schema check.
const parsed = new Map<string, unknown>();

function once<T>(schema: { parse(value: unknown): T }, kind: string, raw: unknown): T {
  const key = `${kind}:${JSON.stringify(raw)}`;
  let value = parsed.get(key) as T | undefined;
  if (value === undefined) {
    value = schema.parse(raw);
    if (parsed.size > 1_000) parsed.clear();
    parsed.set(key, value);
  }
  return value;
}

export const parsePricing = (raw: unknown): Pricing => once(pricingSchema, "pricing", raw);
export const parseRunner = (raw: unknown): RunnerSettings => once(runnerSchema, "runner", raw);

/** A row with its pricing and runner typed. */
export function withCatalogueFields<R extends { pricing: unknown; runner: unknown }>(
  row: R,
): Omit<R, "pricing" | "runner"> & { pricing: Pricing; runner: RunnerSettings } {
  return { ...row, pricing: parsePricing(row.pricing), runner: parseRunner(row.runner) };
}
