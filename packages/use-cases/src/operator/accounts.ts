// What an operator does to accounts: opening one, granting or deducting its tokens, its fair share.
// Tokens only ever move by ledger entries (GRANT, DEDUCT), never by editing a balance.
import {
  appendAudit,
  appendLedger,
  createAccount,
  findAccount,
  recordBalanceLow,
  updateAccountScheduling,
  type Db,
} from "@svc/db";
import type { ActedBy } from "./actedBy.js";

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
    const before = await findAccount(tx, accountId);
    if (!before) return { kind: "not_found" as const };
    const kind = amount > 0 ? "GRANT" : "DEDUCT";
    const applied = await appendLedger(
      tx,
      { accountId, kind, amount: Math.abs(amount), note: reason },
      { requireAvailable: kind === "DEDUCT" },
    );
    if (!applied) {
      const now = (await findAccount(tx, accountId))!;
      // A grant is refused only past MAX_TOKENS; a deduction only past what is available.
      if (kind === "GRANT") return { kind: "too_large" as const, balance: now.balance };
      return { kind: "insufficient" as const, available: now.balance - now.reserved };
    }
    const deliveryIds = kind === "DEDUCT" ? await recordBalanceLow(tx, accountId) : [];
    const after = (await findAccount(tx, accountId))!;
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
    const account = await createAccount(tx, name);
    if (tokens > 0)
      await appendLedger(tx, { accountId: account.id, kind: "GRANT", amount: tokens, note: "opening grant" });
    const after = (await findAccount(tx, account.id))!;
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
    const before = await findAccount(tx, accountId);
    if (!before) return null;
    const after = await updateAccountScheduling(tx, accountId, change);
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
