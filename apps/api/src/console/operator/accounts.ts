// Accounts for their operator: the list, opening one, one account's detail, its fair share, and
// grants and deductions of its tokens.
import { z } from "zod";
import { ApiError, MAX_TOKENS } from "@svc/core";
import {
  accountsOverview,
  adjustTokens,
  listApiKeys,
  listLedger,
  listUsers,
  openAccount,
  sendDeliveries,
  setAccountScheduling,
} from "@svc/use-cases";
import { route } from "../../http/route.js";
import * as R from "../../openapi/consoleResponses.js";
import { presentLedgerEntry } from "../../routes/account.js";
import { presentKey } from "../keys.js";
import { accountId, actedBy, OPERATORS, reason, tokensField } from "./guards.js";
import { presentPerson } from "./people.js";

type Overview = Awaited<ReturnType<typeof accountsOverview>>[number];
const presentAccount = (a: Overview) => ({
  id: a.id,
  name: a.name,
  balance: a.balance,
  reserved: a.reserved,
  available: a.balance - a.reserved,
  weight: a.weight,
  max_concurrent_runs: a.maxConcurrentRuns,
  low_balance_threshold: a.lowBalanceThreshold,
  people: a.people,
  charged_30d: a.charged30d,
  created_at: a.createdAt.toISOString(),
});

async function overviewOf(deps: { db: Parameters<typeof accountsOverview>[0] }, accountId: string) {
  const [account] = await accountsOverview(deps.db, { id: accountId }, 1);
  if (!account) throw new ApiError("NOT_FOUND", `No account with id ${JSON.stringify(accountId)}.`);
  return account;
}

const listAccounts = route({
  method: "get",
  path: "/operator/accounts",
  guards: OPERATORS,
  summary: "Every account (newest first), or those whose id or name contains q: tokens, usage, scheduling",
  query: z.object({ q: z.string().trim().min(1).max(200).optional() }),
  reply: { status: 200, schema: R.OperatorAccounts, description: "Accounts" },
  async handler({ query }, { deps }) {
    const accounts = await accountsOverview(deps.db, { ...(query.q && { q: query.q }) }, 500);
    return { data: { accounts: accounts.map(presentAccount) } };
  },
});

const createAccount = route({
  method: "post",
  path: "/operator/accounts",
  guards: OPERATORS,
  summary: "Open an account, with an opening grant (a ledger GRANT) when tokens is given",
  body: {
    schema: z.strictObject({
      name: z.string().trim().min(1, "expected a name").max(200),
      tokens: tokensField.min(0).max(MAX_TOKENS).default(0),
      reason,
    }),
    example: { name: "Acme Studio", tokens: 10_000, reason: "contract 2026-31 signed" },
  },
  errors: [400],
  reply: { status: 201, schema: R.OperatorAccountResponse, description: "The account" },
  async handler({ body }, { res, deps }) {
    const account = await openAccount(deps.db, actedBy(res, body.reason), body.name, body.tokens);
    return { data: presentAccount(await overviewOf(deps, account.id)) };
  },
});

const readAccount = route({
  method: "get",
  path: "/operator/accounts/{accountId}",
  guards: OPERATORS,
  summary:
    "One account: its figures, people, keys (prefixes and limits, never secrets) and newest ledger entries",
  params: z.object({ accountId }),
  errors: [404],
  reply: { status: 200, schema: R.OperatorAccountDetail, description: "The account" },
  async handler({ params }, { deps }) {
    const account = await overviewOf(deps, params.accountId);
    const [people, keys, ledger] = await Promise.all([
      listUsers(deps.db, account.id),
      listApiKeys(deps.db, account.id),
      listLedger(deps.db, { accountId: account.id, limit: 20 }),
    ]);
    return {
      data: {
        account: presentAccount(account),
        people: people.map(presentPerson),
        keys: keys.reverse().map(presentKey),
        ledger: ledger.map(presentLedgerEntry),
      },
    };
  },
});

const setScheduling = route({
  method: "patch",
  path: "/operator/accounts/{accountId}",
  guards: OPERATORS,
  summary:
    "Set an account's weight and runs at once (null: ACCOUNT_MAX_CONCURRENT_RUNS); waiting runs follow within a sweep",
  params: z.object({ accountId }),
  body: {
    schema: z
      .strictObject({
        weight: z.int("expected a whole number").min(1).max(1000).optional(),
        max_concurrent_runs: z.int("expected a whole number").min(1).max(100_000).nullable().optional(),
        reason,
      })
      .refine(
        (b) => b.weight !== undefined || b.max_concurrent_runs !== undefined,
        "expected weight or max_concurrent_runs",
      ),
    example: { weight: 2, max_concurrent_runs: 20, reason: "enterprise plan" },
  },
  errors: [400, 404],
  reply: { status: 200, schema: R.OperatorAccountResponse, description: "The account now" },
  async handler({ params, body }, { res, deps }) {
    const changed = await setAccountScheduling(deps.db, actedBy(res, body.reason), params.accountId, {
      ...(body.weight !== undefined && { weight: body.weight }),
      ...(body.max_concurrent_runs !== undefined && { maxConcurrentRuns: body.max_concurrent_runs }),
    });
    if (!changed) throw new ApiError("NOT_FOUND", `No account with id ${JSON.stringify(params.accountId)}.`);
    return { data: presentAccount(await overviewOf(deps, changed.id)) };
  },
});

const adjust = route({
  method: "post",
  path: "/operator/accounts/{accountId}/adjustments",
  guards: OPERATORS,
  summary: "Grant (amount > 0) or deduct (amount < 0) tokens with a reason: a GRANT or DEDUCT ledger entry",
  description:
    "Balances are never edited: the entry moves them. A deduction may not take available tokens below zero (402 INSUFFICIENT_TOKENS, nothing changes); one that leaves them below the account's low-balance threshold sends account.balance_low. A balance holds at most 2,147,483,647 tokens: a grant past it is 400 VALIDATION_ERROR and changes nothing.",
  params: z.object({ accountId }),
  body: {
    schema: z.strictObject({
      amount: tokensField
        .min(-MAX_TOKENS)
        .max(MAX_TOKENS)
        .refine((n) => n !== 0, "expected a positive grant or a negative deduction"),
      reason,
    }),
    example: { amount: 5000, reason: "invoice 2026-114 paid" },
  },
  errors: [400, 402, 404],
  reply: { status: 201, schema: R.OperatorAccountResponse, description: "The account after the entry" },
  async handler({ params, body }, { res, deps }) {
    const result = await adjustTokens(deps.db, actedBy(res, body.reason), params.accountId, body.amount);
    switch (result.kind) {
      case "not_found":
        throw new ApiError("NOT_FOUND", `No account with id ${JSON.stringify(params.accountId)}.`);
      case "too_large":
        throw new ApiError(
          "VALIDATION_ERROR",
          `The balance is ${result.balance}; granting ${body.amount} would pass ${MAX_TOKENS} tokens, the most an account can hold.`,
          [{ path: "amount", message: `at most ${MAX_TOKENS - result.balance} now` }],
        );
      case "insufficient":
        throw new ApiError(
          "INSUFFICIENT_TOKENS",
          `Only ${result.available} tokens are available (the rest is reserved by runs in flight); ${-body.amount} cannot be deducted.`,
        );
      case "adjusted":
        await sendDeliveries(deps, result.deliveryIds, { request_id: res.locals.requestId as string });
        return { data: presentAccount(await overviewOf(deps, params.accountId)) };
    }
  },
});

export const ACCOUNT_ROUTES = [listAccounts, createAccount, readAccount, setScheduling, adjust];
