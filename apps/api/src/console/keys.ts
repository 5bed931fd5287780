// An account's API keys in the console (owners create, limit and revoke them; members look): the
// key is shown once, at its creation, and never again.
import { z } from "zod";
import { ApiError, BUDGET_PERIODS, presentBudget } from "@svc/core";
import type { KeyLimits } from "@svc/db";
import {
  createApiKey,
  keySpend,
  listApiKeys,
  revokeAccountKey,
  unknownModelIds,
  updateAccountKey,
} from "@svc/use-cases";
import type { AppDeps } from "../deps.js";
import { route } from "../http/route.js";
import * as R from "../openapi/consoleResponses.js";
import { sessionOf } from "./session.js";

const TEN_YEARS_MS = 10 * 366 * 86_400_000;
/** What a key may do: until when (null: no end), which models (null or []: every model). */
const keyLimits = {
  expires_at: z.iso
    .datetime({ offset: true, error: "expected an ISO 8601 date-time such as 2026-12-31T23:59:59Z" })
    .refine((v) => Date.parse(v) > Date.now(), "expected a time in the future")
    .refine((v) => Date.parse(v) < Date.now() + TEN_YEARS_MS, "expected a time within ten years")
    .nullable()
    .optional()
    .meta({ description: "After it, the key answers 401 like a revoked one; null: it never expires" }),
  allowed_models: z
    .array(z.string().min(1).max(200), "expected a list of model ids")
    .max(100, "expected at most 100 models")
    .nullable()
    .optional()
    .meta({
      description: "The only models the key may run (others: 403 MODEL_NOT_ALLOWED); null or []: every model",
    }),
  budget: z
    .strictObject({
      tokens: z.int("expected a whole number of tokens").min(1).max(2_000_000_000),
      period: z.enum(BUDGET_PERIODS, `expected one of ${BUDGET_PERIODS.join(", ")}`),
    })
    .nullable()
    .optional()
    .meta({
      description:
        "At most `tokens` reserved or charged by the key's live runs created per UTC day, UTC month, or in all (`total`); a run past it answers 402 KEY_BUDGET_EXCEEDED. null: no budget",
    }),
  max_concurrent_runs: z.int("expected a whole number").min(1).max(100_000).nullable().optional().meta({
    description:
      "Runs of this key executing at once on models of limited capacity, on top of the account's limit; more wait QUEUED. null: only the account's limit",
  }),
};

const createKeyBody = z.strictObject({
  name: z.string().trim().min(1, "expected a name").max(100, "expected at most 100 characters"),
  mode: z.enum(["live", "test"], "expected live or test"),
  ...keyLimits,
});

const updateKeyBody = z
  .strictObject(keyLimits)
  .refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    "expected expires_at, allowed_models, budget or max_concurrent_runs",
  );

/** The body's limits as the repository takes them; unknown model ids are a 400 naming them. */
async function limitsOf(deps: AppDeps, body: z.infer<typeof updateKeyBody>): Promise<KeyLimits> {
  if (body.allowed_models) {
    const unknown = await unknownModelIds(body.allowed_models, async (id) => !!(await deps.models(id)));
    if (unknown.length)
      throw new ApiError(
        "VALIDATION_ERROR",
        "Unknown model ids in allowed_models.",
        unknown.map((id) => ({ path: "allowed_models", message: `no model with id ${JSON.stringify(id)}` })),
      );
  }
  return {
    ...(body.expires_at !== undefined && {
      expiresAt: body.expires_at === null ? null : new Date(body.expires_at),
    }),
    ...(body.allowed_models !== undefined && { allowedModels: [...new Set(body.allowed_models ?? [])] }),
    ...(body.budget !== undefined && { budget: body.budget }),
    ...(body.max_concurrent_runs !== undefined && { maxConcurrentRuns: body.max_concurrent_runs }),
  };
}

/** A key as the console shows it: its prefix and limits, never anything that would let one use it. */
export function presentKey(k: Awaited<ReturnType<typeof listApiKeys>>[number]) {
  return {
    id: k.id,
    name: k.name,
    mode: k.mode,
    prefix: k.prefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
    allowed_models: k.allowedModels.length ? k.allowedModels : null,
    budget: presentBudget(k),
    max_concurrent_runs: k.maxConcurrentRuns,
  };
}

export const listKeys = route({
  method: "get",
  path: "/keys",
  summary:
    "The account's API keys, newest first (prefixes only), with the tokens each spent today and this month (UTC)",
  reply: { status: 200, schema: R.KeyList, description: "Keys of both modes" },
  async handler(_input, { res, deps }) {
    const accountId = sessionOf(res).user.account.id;
    const [keys, spend] = await Promise.all([listApiKeys(deps.db, accountId), keySpend(deps.db, accountId)]);
    return {
      data: {
        keys: keys.reverse().map((k) => {
          const spent = spend.get(k.id);
          return { ...presentKey(k), spend: { today: spent?.today ?? 0, this_month: spent?.thisMonth ?? 0 } };
        }),
      },
    };
  },
});

export const createKey = route({
  method: "post",
  path: "/keys",
  summary: "Create an API key (owners); the full key is in this answer only",
  body: {
    schema: createKeyBody,
    example: {
      name: "production server",
      mode: "live",
      expires_at: "2027-06-30T00:00:00Z",
      allowed_models: ["acme/pixel-hq"],
    },
  },
  guards: ["owners"],
  errors: [400, 409],
  reply: { status: 201, schema: R.KeyCreated, description: "The key" },
  async handler({ body }, { res, deps }) {
    const accountId = sessionOf(res).user.account.id;
    const max = deps.settings.API_KEYS_PER_MODE_MAX;
    const made = await createApiKey(
      deps.db,
      accountId,
      body.mode,
      body.name,
      max,
      await limitsOf(deps, body),
    );
    if (!made)
      throw new ApiError(
        "KEY_LIMIT_REACHED",
        `This account already has ${max} active ${body.mode} keys, the most allowed; revoke one first.`,
      );
    const { record, key } = made;
    return {
      data: { ...presentKey(record), key },
      message: "Copy the key now: it is shown only once and cannot be retrieved again.",
    };
  },
});

export const updateKey = route({
  method: "patch",
  path: "/keys/{keyId}",
  summary:
    "Change an API key's expiry, models, budget or concurrency limit (owners); expiry and models in effect within AUTH_CACHE_TTL_MS, the others at once",
  params: z.object({ keyId: z.string() }),
  body: {
    schema: updateKeyBody,
    example: { allowed_models: ["acme/pixel-hq", "acme/echo"], budget: { tokens: 500, period: "day" } },
  },
  guards: ["owners"],
  errors: [400, 404, 409],
  reply: { status: 200, schema: R.KeyUpdated, description: "The key as it is now" },
  async handler({ params: { keyId }, body }, { res, deps }) {
    const max = deps.settings.API_KEYS_PER_MODE_MAX;
    const updated = await updateAccountKey(
      deps.db,
      sessionOf(res).user.account.id,
      keyId,
      await limitsOf(deps, body),
      max,
    );
    if (!updated) throw new ApiError("NOT_FOUND", `No active API key with id ${JSON.stringify(keyId)}.`);
    if (updated === "at_cap")
      throw new ApiError(
        "KEY_LIMIT_REACHED",
        `This key has expired and the account already has ${max} active keys of its mode, the most allowed; revoke one before extending it.`,
      );
    return { data: presentKey(updated) };
  },
});

export const revokeKey = route({
  method: "post",
  path: "/keys/{keyId}/revoke",
  summary: "Revoke an API key (owners); it stops working within AUTH_CACHE_TTL_MS",
  params: z.object({ keyId: z.string() }),
  guards: ["owners"],
  errors: [404],
  reply: { status: 200, schema: R.KeyRevoked, description: "Revoked" },
  async handler({ params: { keyId } }, { res, deps }) {
    const revoked = await revokeAccountKey(deps.db, sessionOf(res).user.account.id, keyId);
    if (!revoked) throw new ApiError("NOT_FOUND", `No API key with id ${JSON.stringify(keyId)}.`);
    return { data: { id: revoked.id, revoked_at: (revoked.revokedAt ?? new Date()).toISOString() } };
  },
});
