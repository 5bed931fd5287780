import { ledgerEffect, newId, type LedgerKind } from "@svc/core";
import type { Db } from "../client.js";
import type { Prisma } from "../generated/prisma/client.js";

export function createAccount(db: Db, name: string) {
  return db.account.create({ data: { id: newId("acct"), name } });
}

/** Appends one ledger entry and moves the cached sums in the same transaction. */
export async function appendLedger(
  tx: Prisma.TransactionClient,
  entry: { accountId: string; kind: LedgerKind; amount: number; runId?: string; note?: string },
) {
  const { balanceDelta, reservedDelta } = ledgerEffect(entry.kind, entry.amount);
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
  return tx.account.update({
    where: { id: entry.accountId },
    data: { balance: { increment: balanceDelta }, reserved: { increment: reservedDelta } },
  });
}

export function grantTokens(db: Db, accountId: string, amount: number, note = "grant") {
  return db.$transaction((tx) => appendLedger(tx, { accountId, kind: "GRANT", amount, note }));
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
