// Personal weights (issue #60): an account's LoRAs as safetensors files, uploaded or fetched from
// an https URL (the file inputs' address rules), checked before a byte is kept (storage's
// storeWeightsFile), recorded within the account's cap per mode, kept until deleted (their bytes
// with them).
import type { Readable } from "node:stream";
import {
  ApiError,
  loraFacts,
  loraFieldOf,
  loraMismatch,
  signedWeightsUrl,
  weightsFileKey,
  weightsRef,
  type ErrorDetail,
  type TensorShape,
} from "@svc/core";
import {
  createWeightsWithinCap,
  deleteWeights,
  findVisibleWeightsBySha,
  findWeights,
  findWeightsById,
  newWeightsId,
  type Db,
  type Weights,
} from "@svc/db";
import { FileRefused, readStoredBytes, storeWeightsFile } from "@svc/storage";
import { fetchUrlInto, Unavailable, type FileDeps, type FileOwner } from "../files/files.js";

export { findWeights, findWeightsBySha, listWeights, renameWeights } from "@svc/db";

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
        tensors: stored.header.tensors.map(({ name, dtype, shape }) => ({ name, dtype, shape })),
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
    published: w.publishedAt !== null,
    created_at: w.createdAt.toISOString(),
  };
}

/**
 * A run's LoRAs checked against its model's `loras` field when the run is made, each `weights`
 * made the id of weights of the owner's: an id (theirs, in the key's mode, not deleted) or an https
 * URL (fetched as new weights of theirs). The weights must be of the model's family when their
 * metadata names one, and fit the layers the model lists (x-lora-targets). Every problem is named
 * at `input.loras[i]` (400); a model without a `loras` field has nothing here to check. Answers
 * the input and the sha256 of each weights (what warm routing knows them by).
 */
export async function resolveLoraInputs(
  deps: WeightsDeps,
  owner: FileOwner,
  inputSchema: unknown,
  input: Record<string, unknown>,
): Promise<{ input: Record<string, unknown>; weights: string[] }> {
  const field = loraFieldOf(inputSchema);
  const loras = input.loras;
  if (!field || !Array.isArray(loras) || !loras.length) return { input, weights: [] };
  const problems: ErrorDetail[] = [];
  const resolved = await Promise.all(
    (loras as { weights: string; scale?: number }[]).map(async (lora, i) => {
      const path = `input.loras[${i}]`;
      try {
        const weights = await weightsOf(deps, owner, lora.weights);
        if (!weights)
          return void problems.push({
            path,
            message: `no weights ${lora.weights} of this account and mode, nor published`,
          });
        const family = field.family;
        if (
          family &&
          weights.baseHints.length &&
          !weights.baseHints.some((h) => h.toLowerCase().includes(family))
        )
          return void problems.push({
            path,
            message: `the weights are for ${weights.baseHints.join(", ")}; this model takes ${family}`,
          });
        const mismatch =
          field.targets && loraMismatch(weights.tensors as unknown as TensorShape[], field.targets);
        if (mismatch) return void problems.push({ path, message: mismatch });
        return { weights: weights.id, scale: lora.scale ?? field.scale.default, sha256: weights.sha256 };
      } catch (error) {
        if (
          error instanceof FileRefused ||
          error instanceof Unavailable ||
          error instanceof WeightsLimitReached
        )
          return void problems.push({ path, message: error.message });
        throw error;
      }
    }),
  );
  if (problems.length) throw new ApiError("VALIDATION_ERROR", "A LoRA of the run was refused.", problems);
  const chosen = resolved.filter((l) => l !== undefined);
  return {
    input: { ...input, loras: chosen.map(({ weights, scale }) => ({ weights, scale })) },
    weights: chosen.map((l) => l.sha256),
  };
}

/**
 * Weights named by a run (weightsRef): an id or a URL of ours, found among those the owner may
 * name, or an https URL fetched as new weights of the owner's.
 */
async function weightsOf(deps: WeightsDeps, owner: FileOwner, value: string) {
  const account = { accountId: owner.accountId, mode: owner.mode };
  const ref = weightsRef(value, deps.files.files.publicBaseUrl);
  switch (ref.kind) {
    case "id":
      return findWeights(deps.files.db, account, ref.id);
    case "sha256":
      return findVisibleWeightsBySha(deps.files.db, account, ref.sha256);
    case "unknown":
      return null;
    case "fetch": {
      const name = decodeURIComponent(new URL(ref.url).pathname.split("/").pop() ?? "").replace(
        /\.safetensors$/i,
        "",
      );
      return weightsFromUrl(deps, owner, ref.url, name.slice(0, 200) || "weights");
    }
  }
}

/** Weights' bytes by id, for a run that applies them (its creation checked whose they are); undefined once deleted. */
export async function readWeightsFile(
  deps: Pick<FileDeps, "db" | "store">,
  id: string,
): Promise<Uint8Array | undefined> {
  const found = await deps.db.weights.findFirst({ where: { id, deletedAt: null }, select: { id: true } });
  if (!found) return undefined;
  return readStoredBytes(deps.store, weightsFileKey(found.id));
}

/**
 * A run's LoRAs as its runner gets them: for a model server, each weights id replaced by the
 * stable signed URL of their bytes (signedWeightsUrl); for a runner on the worker's threads, the
 * ids as they are (it reads the bytes with readWeightsFile). undefined when weights are gone
 * (deleted since the run was made): the run then fails, charged nothing.
 */
export async function runLoraInputs(
  deps: { db: Db; secretsKey: Buffer; publicBaseUrl: string },
  input: Record<string, unknown>,
  as: "urls" | "ids",
  now = new Date(),
): Promise<Record<string, unknown> | undefined> {
  const loras = input.loras as { weights: string; scale: number }[] | undefined;
  if (!Array.isArray(loras) || !loras.length) return input;
  const found = new Map(
    (
      await findWeightsById(
        deps.db,
        loras.map((l) => l.weights),
      )
    ).map((w) => [w.id, w]),
  );
  if (loras.some((l) => !found.get(l.weights) || found.get(l.weights)!.deletedAt)) return undefined;
  if (as === "ids") return input;
  const seconds = Math.floor(now.getTime() / 1000);
  return {
    ...input,
    loras: loras.map((l) => ({
      ...l,
      weights: signedWeightsUrl(deps.publicBaseUrl, deps.secretsKey, found.get(l.weights)!.sha256, seconds),
    })),
  };
}
