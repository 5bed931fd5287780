import { balanceLowTemplate, ledgerEffect, MAX_TOKENS, newId, type LedgerKind } from "@svc/core";
import { findMany, findOne, type Db } from "../client.js";
import { Prisma } from "../generated/prisma/client.js";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";

export function createAccount(db: Db | Prisma.TransactionClient, name: string) {
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
  // A balance past MAX_TOKENS cannot be stored: such an entry is not applied (false), never a failure.
  const room = balanceDelta > 0 ? Prisma.sql`AND balance <= ${MAX_TOKENS - balanceDelta}::int` : Prisma.empty;
  // A grant that brings available tokens back to the low-balance threshold arms account.balance_low again.
  const updated = await tx.$executeRaw`
    UPDATE accounts SET balance = balance + ${balanceDelta}, reserved = reserved + ${reservedDelta},
      balance_low_armed = balance_low_armed OR (${balanceDelta}::int > 0
        AND balance + ${balanceDelta}::int - reserved - ${reservedDelta}::int >= COALESCE(low_balance_threshold, 0))
    WHERE id = ${entry.accountId} ${guard} ${room}`;
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

/** An account's figures and settings, as GET /account and the operator's changes read them. */
export const ACCOUNT_SUMMARY = {
  id: true,
  name: true,
  balance: true,
  reserved: true,
  weight: true,
  maxConcurrentRuns: true,
  lowBalanceThreshold: true,
} as const;

export function findAccount(db: Db | Prisma.TransactionClient, id: string) {
  return db.account.findUnique({ where: { id }, select: ACCOUNT_SUMMARY });
}

/** The oldest account of this name (the CLI's demo account), or null. */
export function findAccountByName(db: Db, name: string) {
  return db.account.findFirst({ where: { name }, orderBy: { createdAt: "asc" }, select: ACCOUNT_SUMMARY });
}

/** Every account, oldest first, with its figures and settings. */
export function listAccounts(db: Db) {
  return db.account.findMany({ orderBy: { createdAt: "asc" }, select: ACCOUNT_SUMMARY });
}

/** An account's fair share (weight) and runs at once (null: the default), in the caller's transaction. */
export function updateAccountScheduling(
  tx: Prisma.TransactionClient,
  id: string,
  change: { weight?: number; maxConcurrentRuns?: number | null },
) {
  return tx.account.update({ where: { id }, data: change, select: ACCOUNT_SUMMARY });
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

/**
 * Every account with what an operator watches: one by id, those whose id is or whose name contains
 * `q`, or all, newest first. (Sums over time may pass a token column's range: float8, exact to
 * 2^53, read as a number.)
 */
export function accountsOverview(db: Db, filter: { id?: string; q?: string }, limit: number) {
  return findMany<{
    id: string;
    name: string;
    balance: number;
    reserved: number;
    weight: number;
    maxConcurrentRuns: number | null;
    lowBalanceThreshold: number | null;
    createdAt: Date;
    people: number;
    charged30d: number;
  }>(
    db,
    "accounts_overview",
    `SELECT a.id, a.name, a.balance, a.reserved, a.weight, a.max_concurrent_runs, a.low_balance_threshold, a.created_at,
            (SELECT count(*)::int FROM users u WHERE u.account_id = a.id) AS people,
            (SELECT COALESCE(sum(l.amount), 0)::float8 FROM ledger_entries l
              WHERE l.account_id = a.id AND l.kind = 'CHARGE' AND l.created_at >= now() - interval '30 days') AS charged30d
     FROM accounts a
     WHERE ($3::text IS NULL OR a.id = $3)
       AND ($1::text IS NULL OR a.id = $1 OR a.name ILIKE '%' || $1 || '%')
     ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
    [filter.q ?? null, limit, filter.id ?? null],
  );
}

/**
 * The INSERT of account.balance_low deliveries for the accounts of `crossed` (id, available,
 * low_balance_threshold), one per live endpoint subscribed to it. Its parameters are $2..$6:
 * balanceLowTemplate's body and its placeholders (webhook id, available, threshold, time).
 */
export const insertBalanceLowDeliveries = (crossed: string) => `
INSERT INTO deliveries (id, account_id, mode, endpoint_id, url, event, body, created_at)
SELECT svc_random_id('whd'), c.id, 'live', e.id, e.url, 'account.balance_low',
       replace(replace(replace(replace($2, $3, to_json(e.id)::text), $4, c.available::text),
                       $5, c.low_balance_threshold::text),
               $6, to_json(to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text),
       now()
FROM ${crossed} c JOIN webhook_endpoints e ON e.account_id = c.id AND e.mode = 'live' AND e.status = 'active'
                                         AND 'account.balance_low' = ANY(e.events)
RETURNING id`;

/** balanceLowTemplate's body and placeholders, in the order insertBalanceLowDeliveries numbers them. */
export function balanceLowParameters(): string[] {
  const { body, placeholders } = balanceLowTemplate();
  return [body, placeholders.webhookId, placeholders.available, placeholders.threshold, placeholders.at];
}

const BALANCE_LOW = `
WITH crossed AS (
  UPDATE accounts SET balance_low_armed = false
  WHERE id = $1 AND balance_low_armed AND balance - reserved < low_balance_threshold
  RETURNING id, balance - reserved AS available, low_balance_threshold
)${insertBalanceLowDeliveries("crossed")}`;

/**
 * account.balance_low after a deduction, in the caller's transaction: when the account is armed
 * and now below its threshold, it is disarmed and the deliveries recorded (as run creation does
 * for reservations). The deliveries to enqueue.
 */
export async function recordBalanceLow(tx: Prisma.TransactionClient, accountId: string): Promise<string[]> {
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(BALANCE_LOW, accountId, ...balanceLowParameters());
  return rows.map((r) => r.id);
}
