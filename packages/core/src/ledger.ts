// Token ledger rules, after TigerBeetle's two-phase transfers: RESERVE is a pending transfer,
// CHARGE posts part of it and RELEASE voids the rest. account.balance = sum(balance_delta),
// account.reserved = sum(reserved_delta), available = balance - reserved, never below zero.
/**
 * The most tokens an amount, a balance or a counter can hold (Postgres integer). What would pass it
 * is refused with a 400 (a grant, a price, a budget), never stored and never a 500.
 */
export const MAX_TOKENS = 2_147_483_647;

export type LedgerKind = "GRANT" | "RESERVE" | "CHARGE" | "RELEASE" | "DEDUCT";

export interface LedgerEffect {
  balanceDelta: number;
  reservedDelta: number;
}

export function ledgerEffect(kind: LedgerKind, amount: number): LedgerEffect {
  if (!Number.isInteger(amount) || amount < 0)
    throw new RangeError(`ledger amount must be a non-negative integer, got ${amount}`);
  switch (kind) {
    case "GRANT":
      return { balanceDelta: amount, reservedDelta: 0 };
    case "RESERVE":
      return { balanceDelta: 0, reservedDelta: amount };
    case "CHARGE":
      return { balanceDelta: -amount, reservedDelta: -amount };
    case "RELEASE":
      return { balanceDelta: 0, reservedDelta: -amount };
    case "DEDUCT":
      return { balanceDelta: -amount, reservedDelta: 0 };
  }
}

export function available(account: { balance: number; reserved: number }): number {
  return account.balance - account.reserved;
}
