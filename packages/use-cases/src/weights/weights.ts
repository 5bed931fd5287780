// Personal weights (issue #60): an account's LoRAs as safetensors files, uploaded or fetched from
// an https URL (the file inputs' address rules), checked before a byte is kept (storage's
// storeWeightsFile), recorded within the account's cap per mode, kept until deleted (their bytes
// with them).
import type { Readable } from "node:stream";
import { loraFacts, weightsFileKey } from "@svc/core";
import { createWeightsWithinCap, deleteWeights, newWeightsId, type Weights } from "@svc/db";
import { storeWeightsFile } from "@svc/storage";
import { fetchUrlInto, type FileDeps, type FileOwner } from "../files/files.js";

export { findWeights, listWeights, renameWeights } from "@svc/db";

export interface WeightsDeps {
  files: FileDeps;
  /** WEIGHTS_MAX_BYTES. */
  maxBytes: number;
  /** WEIGHTS_PER_ACCOUNT, per mode. */
  perAccount: number;
}

/** The owner holds WEIGHTS_PER_ACCOUNT weights of the mode already. */
export class WeightsLimitReached extends Error {
  constructor(readonly max: number) {
    super(`This account already holds ${max} weights in this mode, the most allowed; delete some first.`);
    this.name = "WeightsLimitReached";
  }
}

/** Takes in one weights file; throws FileRefused (nothing kept) or WeightsLimitReached. */
export async function ingestWeights(
  deps: WeightsDeps,
  owner: FileOwner,
  source: Readable | Uint8Array,
  meta: { name: string; origin: "upload" | "url" },
  signal?: AbortSignal,
): Promise<Weights> {
  const id = newWeightsId();
  const stored = await storeWeightsFile(deps.files.store, id, source, deps.maxBytes, signal);
  const facts = loraFacts(stored.header);
  try {
    const made = await createWeightsWithinCap(
      deps.files.db,
      { accountId: owner.accountId, mode: owner.mode },
      id,
      deps.perAccount,
      {
        apiKeyId: owner.apiKeyId,
        name: meta.name,
        size: stored.size,
        sha256: stored.sha256,
        tensorCount: facts.tensorCount,
        rank: facts.rank,
        layers: facts.layers,
        baseHints: facts.baseHints,
        origin: meta.origin,
      },
    );
    if (!made) throw new WeightsLimitReached(deps.perAccount);
    return made;
  } catch (error) {
    // No row, no file: its bytes go (nothing could name them).
    await deps.files.store.remove([stored.key]).catch(() => {});
    throw error;
  }
}

/** Weights fetched from an https URL (the file inputs' address rules, WEIGHTS_MAX_BYTES). */
export const weightsFromUrl = (deps: WeightsDeps, owner: FileOwner, url: string, name: string) =>
  fetchUrlInto(deps.files, url, deps.maxBytes, (body, signal) =>
    ingestWeights(deps, owner, body, { name, origin: "url" }, signal),
  );

/** Deletes the owner's weights; their bytes go with them. The weights as they were, or null. */
export async function removeWeights(
  deps: WeightsDeps,
  owner: FileOwner,
  id: string,
): Promise<Weights | null> {
  const gone = await deleteWeights(deps.files.db, { accountId: owner.accountId, mode: owner.mode }, id);
  // Each weights' bytes are their own copy (under their id): other weights of the same bytes keep theirs.
  if (gone) await deps.files.store.remove([weightsFileKey(gone.id)]).catch(() => {});
  return gone;
}

/** Weights as the API shows them (never where their bytes are). */
export function presentWeights(w: Weights) {
  return {
    id: w.id,
    name: w.name,
    size: w.size,
    sha256: w.sha256,
    tensor_count: w.tensorCount,
    rank: w.rank,
    layers: w.layers,
    base_hints: w.baseHints,
    origin: w.origin as "upload" | "url",
    created_at: w.createdAt.toISOString(),
  };
}
