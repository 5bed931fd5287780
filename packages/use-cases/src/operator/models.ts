// What an operator changes of a model: its price, status, queue cap, or a Cog model's servers and
// concurrency.
import { runnerForAudit, runnerSchema, type Pricing, type RunnerSettings } from "@svc/core";
import { appendAudit, findModelSettings, updateModelSettings, type Db } from "@svc/db";
import type { ActedBy } from "./actedBy.js";

/** What an operator may change of a model; a Cog model's servers and concurrency live in its runner. */
export interface ModelChange {
  tokensPerUnit?: number;
  status?: string;
  maxQueue?: number | null;
  servers?: string[];
  concurrency?: number;
}

export type ModelChangeResult =
  | {
      kind: "changed";
      model: {
        id: string;
        status: string;
        pricing: Pricing;
        runner: RunnerSettings;
        maxQueue: number | null;
      };
    }
  | { kind: "not_found" }
  | { kind: "invalid"; message: string };

/**
 * Changes a model's price, status, queue cap, or a Cog model's servers and concurrency. The API
 * and workers pick it up within CATALOGUE_CACHE_TTL_MS (capacity at the pool monitor's next pass).
 */
export async function changeModel(
  db: Db,
  { actor, reason }: ActedBy,
  modelId: string,
  change: ModelChange,
): Promise<ModelChangeResult> {
  return db.$transaction(async (tx) => {
    const before = await findModelSettings(tx, modelId);
    if (!before) return { kind: "not_found" as const };
    const runner = before.runner;
    if ((change.servers || change.concurrency) && runner.kind === "builtin")
      return {
        kind: "invalid" as const,
        message: `${modelId} runs on built-in generators: it has no servers.`,
      };
    const nextRunner = runnerSchema.safeParse({
      ...runner,
      ...(change.servers && { servers: change.servers }),
      ...(change.concurrency && { concurrency: change.concurrency }),
    });
    if (!nextRunner.success)
      return { kind: "invalid" as const, message: nextRunner.error.issues[0]!.message };
    const after = await updateModelSettings(tx, modelId, {
      ...(change.tokensPerUnit !== undefined && {
        pricing: { ...before.pricing, tokens_per_unit: change.tokensPerUnit },
      }),
      ...(change.status !== undefined && { status: change.status }),
      ...(change.maxQueue !== undefined && { maxQueue: change.maxQueue }),
      runner: nextRunner.data,
    });
    await appendAudit(tx, {
      actor,
      action: "model.update",
      accountId: null,
      targetId: modelId,
      before: {
        status: before.status,
        pricing: before.pricing,
        runner: runnerForAudit(before.runner),
        max_queue: before.maxQueue,
      },
      after: {
        status: after.status,
        pricing: after.pricing,
        runner: runnerForAudit(after.runner),
        max_queue: after.maxQueue,
      },
      reason,
    });
    return { kind: "changed" as const, model: after };
  });
}
