import { ledgerEffect, newId, type LedgerKind } from "@svc/core";
import type { Db } from "../client.js";
import { Prisma } from "../generated/prisma/client.js";

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
  const updated = await tx.$executeRaw`
    UPDATE accounts SET balance = balance + ${balanceDelta}, reserved = reserved + ${reservedDelta}
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
