// What an operator does to accounts, people, keys and models, from the console or the CLI: each
// change and its audit entry (who, what, before, after, why) are one transaction, so the log holds
// an action exactly when it happened. Tokens only ever move by ledger entries (GRANT, DEDUCT),
// never by editing a balance.
import { ACCOUNT_ROLES, newId, pricingSchema, runnerSchema, type Mode, type UserRole } from "@svc/core";
import {
  ACCOUNT_SUMMARY,
  appendAudit,
  appendLedger,
  Prisma,
  PUBLIC_USER,
  recordBalanceLow,
  createApiKey,
  revokeApiKey,
  type Db,
  type KeyLimits,
} from "@svc/db";
import { addUser, type CreateUserResult } from "../console/people.js";

/** The operator acting, as the audit log names them (the CLI: cliActor). */
export interface Actor {
  id: string;
  email: string;
}

/** Who acts, and why: every operator action carries both into its audit entry. */
export interface ActedBy {
  actor: Actor;
  reason: string;
}

/** The CLI's actor: the operating-system user who ran it, on which host. */
export function cliActor(user: string, host: string): Actor {
  return { id: "cli", email: `cli:${user}@${host}` };
}

export type AdjustResult =
  | { kind: "adjusted"; account: { id: string; balance: number; reserved: number }; deliveryIds: string[] }
  | { kind: "not_found" }
  | { kind: "insufficient"; available: number }
  | { kind: "too_large"; balance: number };

/**
 * Grants (amount > 0) or deducts (amount < 0) tokens with a reason: a GRANT or DEDUCT ledger entry.
 * A deduction never takes available tokens below zero (what is reserved stays covered); one that
 * leaves the account below its low-balance threshold records account.balance_low.
 */
export async function adjustTokens(
  db: Db,
  { actor, reason }: ActedBy,
  accountId: string,
  amount: number,
): Promise<AdjustResult> {
  return db.$transaction(async (tx) => {
    const before = await tx.account.findUnique({ where: { id: accountId }, select: ACCOUNT_SUMMARY });
    if (!before) return { kind: "not_found" as const };
    const kind = amount > 0 ? "GRANT" : "DEDUCT";
    const applied = await appendLedger(
      tx,
      { accountId, kind, amount: Math.abs(amount), note: reason },
      { requireAvailable: kind === "DEDUCT" },
    );
    if (!applied) {
      const now = await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: ACCOUNT_SUMMARY });
      // A grant is refused only past MAX_TOKENS; a deduction only past what is available.
      if (kind === "GRANT") return { kind: "too_large" as const, balance: now.balance };
      return { kind: "insufficient" as const, available: now.balance - now.reserved };
    }
    const deliveryIds = kind === "DEDUCT" ? await recordBalanceLow(tx, accountId) : [];
    const after = await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: ACCOUNT_SUMMARY });
    await appendAudit(tx, {
      actor,
      action: kind === "GRANT" ? "tokens.grant" : "tokens.deduct",
      accountId,
      targetId: accountId,
      before: { balance: before.balance, reserved: before.reserved },
      after: { balance: after.balance, reserved: after.reserved, amount },
      reason,
    });
    return { kind: "adjusted" as const, account: after, deliveryIds };
  });
}

/** A new account, with its opening grant (if any, at most MAX_TOKENS) in the ledger. */
export async function openAccount(db: Db, { actor, reason }: ActedBy, name: string, tokens: number) {
  return db.$transaction(async (tx) => {
    const account = await tx.account.create({ data: { id: newId("acct"), name }, select: ACCOUNT_SUMMARY });
    if (tokens > 0)
      await appendLedger(tx, { accountId: account.id, kind: "GRANT", amount: tokens, note: "opening grant" });
    const after = await tx.account.findUniqueOrThrow({ where: { id: account.id }, select: ACCOUNT_SUMMARY });
    await appendAudit(tx, {
      actor,
      action: "account.create",
      accountId: account.id,
      targetId: account.id,
      before: null,
      after,
      reason,
    });
    return after;
  });
}

/** An account's fair share (weight) and runs at once (null: ACCOUNT_MAX_CONCURRENT_RUNS); null when unknown. */
export async function setAccountScheduling(
  db: Db,
  { actor, reason }: ActedBy,
  accountId: string,
  change: { weight?: number; maxConcurrentRuns?: number | null },
) {
  return db.$transaction(async (tx) => {
    const before = await tx.account.findUnique({ where: { id: accountId }, select: ACCOUNT_SUMMARY });
    if (!before) return null;
    const after = await tx.account.update({
      where: { id: accountId },
      data: change,
      select: ACCOUNT_SUMMARY,
    });
    await appendAudit(tx, {
      actor,
      action: "account.scheduling",
      accountId,
      targetId: accountId,
      before: { weight: before.weight, max_concurrent_runs: before.maxConcurrentRuns },
      after: { weight: after.weight, max_concurrent_runs: after.maxConcurrentRuns },
      reason,
    });
    return after;
  });
}

/**
 * A person of an account (an owner or member; operators are made with the CLI), created and
 * audited in one transaction: the account's owners see it in their security log.
 */
export async function addPerson(
  db: Db,
  { actor, reason }: ActedBy,
  accountId: string,
  person: { email: string; password: string; role?: UserRole },
): Promise<CreateUserResult> {
  return addUser(db, { accountId, ...person }, (user) => ({
    actor,
    action: "person.create",
    accountId,
    targetId: user.id,
    before: null,
    after: { email: user.email, role: user.role },
    reason,
  }));
}

/**
 * Changes a person's role or disables them (ending their sessions); enabling again is allowed. Null
 * when unknown, "operator" when the person is an operator (they are managed with the CLI).
 */
export async function updatePerson(
  db: Db,
  { actor, reason }: ActedBy,
  userId: string,
  change: { role?: (typeof ACCOUNT_ROLES)[number]; disabled?: boolean },
  { operators = false } = {},
) {
  return db.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: userId }, select: PUBLIC_USER });
    if (!before) return null;
    // Operators are managed with the CLI (which may disable one), never from the console.
    if (before.role === ("operator" satisfies UserRole) && !operators) return "operator" as const;
    const after = await tx.user.update({
      where: { id: userId },
      data: {
        ...(change.role && { role: change.role }),
        ...(change.disabled !== undefined && {
          disabledAt: change.disabled ? (before.disabledAt ?? new Date()) : null,
        }),
      },
      select: PUBLIC_USER,
    });
    if (change.disabled) await tx.consoleSession.deleteMany({ where: { userId } });
    await appendAudit(tx, {
      actor,
      action: "person.update",
      accountId: before.accountId,
      targetId: userId,
      before: { role: before.role, disabled: before.disabledAt !== null },
      after: { role: after.role, disabled: after.disabledAt !== null },
      reason,
    });
    return after;
  });
}

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
      model: { id: string; status: string; pricing: unknown; runner: unknown; maxQueue: number | null };
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
    const before = await tx.model.findUnique({
      where: { id: modelId },
      select: { id: true, status: true, pricing: true, runner: true, maxQueue: true },
    });
    if (!before) return { kind: "not_found" as const };
    const pricing = pricingSchema.parse(before.pricing);
    const runner = runnerSchema.parse(before.runner);
    if ((change.servers || change.concurrency) && runner.kind !== "cog")
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
    const after = await tx.model.update({
      where: { id: modelId },
      data: {
        ...(change.tokensPerUnit !== undefined && {
          pricing: { ...pricing, tokens_per_unit: change.tokensPerUnit },
        }),
        ...(change.status !== undefined && { status: change.status }),
        ...(change.maxQueue !== undefined && { maxQueue: change.maxQueue }),
        runner: nextRunner.data as Prisma.InputJsonValue,
      },
      select: { id: true, status: true, pricing: true, runner: true, maxQueue: true },
    });
    await appendAudit(tx, {
      actor,
      action: "model.update",
      accountId: null,
      targetId: modelId,
      before: {
        status: before.status,
        pricing: before.pricing,
        runner: before.runner,
        max_queue: before.maxQueue,
      },
      after: {
        status: after.status,
        pricing: after.pricing,
        runner: after.runner,
        max_queue: after.maxQueue,
      },
      reason,
    });
    return { kind: "changed" as const, model: after };
  });
}

/** An API key made by an operator (the CLI), audited in its transaction; null at the account's cap. */
export function issueKey(
  db: Db,
  { actor, reason }: ActedBy,
  key: { accountId: string; mode: Mode; name: string; max: number; limits?: KeyLimits },
) {
  return createApiKey(db, key.accountId, key.mode, key.name, key.max, key.limits, (tx, record) =>
    appendAudit(tx, {
      actor,
      action: "key.create",
      accountId: record.accountId,
      targetId: record.id,
      before: null,
      after: { name: record.name, mode: record.mode, prefix: record.prefix },
      reason,
    }),
  );
}

/** An API key revoked by an operator (the CLI), audited in its transaction; null when unknown. */
export function revokeKey(db: Db, { actor, reason }: ActedBy, keyId: string) {
  return revokeApiKey(db, keyId, (tx, key) =>
    appendAudit(tx, {
      actor,
      action: "key.revoke",
      accountId: key.accountId,
      targetId: key.id,
      before: { name: key.name, mode: key.mode, revoked: false },
      after: { revoked: true },
      reason,
    }),
  );
}
