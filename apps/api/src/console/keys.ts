import { presentBudget } from "@svc/core";
import type { listApiKeys } from "@svc/db";

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
