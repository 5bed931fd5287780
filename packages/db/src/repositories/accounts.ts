import { ledgerEffect, newId, type LedgerKind } from "@svc/core";
import { findOne, type Db } from "../client.js";
import { Prisma } from "../generated/prisma/client.js";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";

export function createAccount(db: Db, name: string) {
  return db.account.create({ data: { id: newId("acct"), name } });
}

/**
 * Appends one ledger entry and moves the account's cached sums by the same deltas, in the caller's
 * transaction. With requireAvailable the update only happens while available tokens cover the
 * amount (the row lock makes the check and the change one step); false means it did not happen.
 */
export async function appendLedger(
  tx: Prisma.TransactionClient,
  entry: { accountId: string; kind: LedgerKind; amount: number; runId?: string; note?: string },
  { requireAvailable = false } = {},
): Promise<boolean> {
  const { balanceDelta, reservedDelta } = ledgerEffect(entry.kind, entry.amount);
  const guard = requireAvailable ? Prisma.sql`AND balance - reserved >= ${entry.amount}` : Prisma.empty;
  // A grant that brings available tokens back to the low-balance threshold arms account.balance_low again.
  const updated = await tx.$executeRaw`
    UPDATE accounts SET balance = balance + ${balanceDelta}, reserved = reserved + ${reservedDelta},
      balance_low_armed = balance_low_armed OR (${balanceDelta}::int > 0
        AND balance + ${balanceDelta}::int - reserved - ${reservedDelta}::int >= COALESCE(low_balance_threshold, 0))
    WHERE id = ${entry.accountId} ${guard}`;
  if (updated === 0) return false;
  await tx.ledgerEntry.create({
    data: {
      id: newId("led"),
      accountId: entry.accountId,
      runId: entry.runId ?? null,
      kind: entry.kind,
      amount: entry.amount,
      balanceDelta,
      reservedDelta,
      note: entry.note ?? "",
    },
  });
  return true;
}

export async function grantTokens(db: Db, accountId: string, amount: number, note = "grant") {
  return db.$transaction(async (tx) => {
    if (!(await appendLedger(tx, { accountId, kind: "GRANT", amount, note })))
      throw new Error(`no account ${accountId}`);
    return tx.account.findUniqueOrThrow({ where: { id: accountId } });
  });
}

/** The account's cached sums next to the sums of its ledger; they must always be equal. */
export async function ledgerTotals(db: Db, accountId: string) {
  const [account, sums] = await Promise.all([
    db.account.findUniqueOrThrow({ where: { id: accountId } }),
    db.ledgerEntry.aggregate({ where: { accountId }, _sum: { balanceDelta: true, reservedDelta: true } }),
  ]);
  return {
    cached: { balance: account.balance, reserved: account.reserved },
    ledger: { balance: sums._sum.balanceDelta ?? 0, reserved: sums._sum.reservedDelta ?? 0 },
  };
}

export function findAccount(db: Db, id: string) {
  return db.account.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      balance: true,
      reserved: true,
      weight: true,
      maxConcurrentRuns: true,
      lowBalanceThreshold: true,
    },
  });
}

/**
 * Sets the account's low-balance threshold (null: no alert) and arms account.balance_low: the next
 * reservation that leaves available tokens below it sends the alert, even if they are below already.
 */
export async function setLowBalanceThreshold(db: Db, accountId: string, threshold: number | null) {
  await db.account.update({
    where: { id: accountId },
    data: { lowBalanceThreshold: threshold, balanceLowArmed: true },
  });
}

/** Ledger entries newest first, in keyset pages (created_at, id), optionally of one run. */
export function listLedger(
  db: Db,
  f: { accountId: string; runId?: string; after?: Position; limit: number },
) {
  return db.ledgerEntry.findMany({
    where: { accountId: f.accountId, ...(f.runId && { runId: f.runId }), ...pastPosition(f.after) },
    orderBy: NEWEST_FIRST,
    take: f.limit,
  });
}

/** Tokens charged per UTC day (YYYY-MM-DD) from `since` (CHARGE entries); days without charges left out. */
export async function chargedPerDay(db: Db, accountId: string, since: Date) {
  const rows = await db.$queryRaw<{ day: string; tokens: bigint; runs: bigint }[]>`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
           sum(amount)::bigint AS tokens, count(*)::bigint AS runs
    FROM ledger_entries
    WHERE account_id = ${accountId} AND kind = 'CHARGE' AND created_at >= ${since}
    GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({ day: r.day, tokens: Number(r.tokens), runs: Number(r.runs) }));
}

/** What the scheduler needs of an account: its weight and its limit of runs executing at once. */
export function findAccountScheduling(db: Db, id: string) {
  return findOne<{ weight: number; maxConcurrentRuns: number | null }>(
    db,
    "accounts_scheduling",
    "SELECT weight, max_concurrent_runs FROM accounts WHERE id = $1",
    [id],
  );
}
