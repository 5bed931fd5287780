// Creating a run: its row (what it reserves, how it is admitted), the Idempotency-Key's replay
// or reuse, and the refusals (model not active, tokens short, a key's budget reached).
import { createHash } from "node:crypto";
import {
  batchTokens,
  budgetResetsAt,
  canonicalJson,
  isInstant,
  lorasIn,
  newId,
  PER_RUN_EVENTS,
  traitsOf,
  tokensFor,
  unitsRequested,
  webhookFilterEvents,
} from "@svc/core";
import { findIdempotentRun, recordBudgetReached, type KeyBudgetState } from "@svc/db";
import type {
  BatchLine,
  CreateBatchRunResult,
  CreateRunCommand,
  CreateRunResult,
  LifecycleContext,
} from "./lifecycle.js";
import type { NewRun } from "./pipelines.js";

async function replayOf(
  ctx: LifecycleContext,
  command: CreateRunCommand,
  requestHash: string | null,
): Promise<CreateRunResult | null> {
  const existing = await findIdempotentRun(ctx.db, {
    accountId: command.accountId,
    mode: command.mode,
    idempotencyKey: command.idempotencyKey!,
  });
  if (!existing) return null;
  if (existing.requestHash !== requestHash) return { kind: "key_reused" };
  return { kind: "replayed", run: existing };
}

/**
 * key.budget_reached, once per key and period (the first refusal records it). The refusal stands
 * whatever happens here: a failure is logged, and the next refusal records it again.
 */
async function budgetReached(
  ctx: LifecycleContext,
  keyId: string,
  budget: KeyBudgetState,
  needed: number,
): Promise<void> {
  try {
    const deliveries = await recordBudgetReached(ctx.db, keyId, budget.periodStart, {
      keyId,
      budgetTokens: budget.tokens,
      period: budget.period,
      usedTokens: budget.used,
      neededTokens: needed,
      resetsAt: budgetResetsAt(budget.period, budget.periodStart),
      at: new Date(),
    });
    if (deliveries.length)
      await ctx.queues
        .enqueueDeliveries(deliveries)
        .catch(ctx.warn("enqueue of deliveries", { delivery_ids: deliveries }));
  } catch (error) {
    ctx.logger.warn("recording key.budget_reached failed; the next refusal records it", {
      key_id: keyId,
      error: (error as Error).message,
    });
  }
}

/** The row of a run to create: what it reserves, how it is admitted (its pool, an instant run's job). */
function newRunRow(command: CreateRunCommand, requestHash: string | null, line?: BatchLine): NewRun {
  const { model } = command;
  const units = unitsRequested(model.pricing, command.input);
  const price = tokensFor(model.pricing, units, lorasIn(command.input));
  const estimatedTokens = line ? batchTokens(price, line.discountPercent) : price;
  const reserve = command.mode === "live" ? estimatedTokens : 0;
  const traits = traitsOf(model.runner);
  const pool = traits.pool;
  return {
    admission: {
      pool: pool ? model.id : null,
      ...(pool && traits.executesWhereLeased && { executesWhereLeased: true }),
      ...(pool && { input: JSON.stringify(command.input) }),
      ...(isInstant(model.runner) && {
        instant: {
          modelId: model.id,
          accountId: command.accountId,
          input: JSON.stringify(command.input),
          unitsRequested: units,
          reservedTokens: reserve,
          estimatedTokens,
          runner: model.runner,
          ...(command.traceParent && { traceParent: command.traceParent }),
        },
      }),
      ...(pool?.kind === "servers" &&
        pool.warmWeights > 0 &&
        command.weights?.length && { weights: command.weights }),
      accountId: command.accountId,
      priority: command.priority,
      weight: command.account.weight,
      maxConcurrentRuns: command.account.maxConcurrentRuns,
      keyId: command.apiKeyId,
      keyMaxConcurrentRuns: command.keyMaxConcurrentRuns ?? null,
    },
    priority: command.priority,
    id: newId("run"),
    accountId: command.accountId,
    apiKeyId: command.apiKeyId,
    mode: command.mode,
    modelId: model.id,
    input: command.input,
    webhookUrl: command.webhookUrl,
    unitsRequested: units,
    estimatedTokens,
    reserve,
    ledgerId: newId("led"),
    idempotencyKey: command.idempotencyKey,
    requestHash,
    webhookEvents: command.webhookEventsFilter
      ? webhookFilterEvents(command.webhookEventsFilter)
      : PER_RUN_EVENTS,
    cancelAt: command.cancelAfterMs === null ? null : new Date(Date.now() + command.cancelAfterMs),
    ...(command.traceParent && { traceParent: command.traceParent }),
    ...(command.api && command.api !== "native" && { api: command.api }),
    ...(line && { batchItem: { batchId: line.batchId, line: line.line } }),
  };
}

/**
 * Creates a run, or answers why not: a replay of its Idempotency-Key, a key reused with another
 * body, a model no longer active, tokens or a key's budget short (key.budget_reached recorded).
 */
export async function createRun(ctx: LifecycleContext, command: CreateRunCommand): Promise<CreateRunResult>;
export async function createRun(
  ctx: LifecycleContext,
  command: CreateRunCommand,
  line: BatchLine,
): Promise<CreateBatchRunResult>;
export async function createRun(
  ctx: LifecycleContext,
  command: CreateRunCommand,
  line?: BatchLine,
): Promise<CreateBatchRunResult> {
  const { model } = command;
  // The canonical request (key order does not matter) tells a replay from a reuse of the key.
  const requestHash = command.idempotencyKey
    ? createHash("sha256")
        .update(canonicalJson({ modelId: model.id, body: command.body }))
        .digest("hex")
    : null;
  // A key is looked up only when the creation statement finds it taken ("conflict" below): a
  // lookup before every keyed creation cost a query, while a first request is the rule and a
  // replay the exception. A replay still answers once the model is no longer active.
  if (model.status !== "active")
    return (
      (command.idempotencyKey && (await replayOf(ctx, command, requestHash))) || {
        kind: "model_not_active",
        status: model.status,
      }
    );
  const row = newRunRow(command, requestHash, line);
  const { estimatedTokens, reserve } = row;
  // A key that conflicted but holds no replayable run was freed meanwhile (past its 24 h
  // window): the run is submitted once more, now without a twin.
  for (let attempt = 0; ; attempt++) {
    const answer = await ctx.creations.submit(row);
    switch (answer.kind) {
      case "error":
        throw answer.error;
      case "created":
        await answer.admitted;
        return {
          kind: "created",
          run: {
            id: row.id,
            modelId: row.modelId,
            mode: row.mode,
            estimatedTokens,
            createdAt: answer.createdAt,
          },
        };
      case "unreserved":
        return { kind: "insufficient", needed: reserve };
      case "taken":
        return { kind: "line_taken" };
      case "over_budget":
        await budgetReached(ctx, row.apiKeyId, answer.budget, reserve);
        return { kind: "over_budget", needed: reserve, budget: answer.budget };
      case "conflict": {
        // The key is taken: a replay, a reuse with another body, or a twin created first (in
        // an earlier batch or elsewhere).
        const replay = await replayOf(ctx, command, requestHash);
        if (replay) return replay;
        if (attempt > 0) throw new Error("an Idempotency-Key keeps conflicting with no run holding it");
      }
    }
  }
}
