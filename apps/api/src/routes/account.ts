import { z } from "zod";
import { ApiError, concurrencyLimit, presentBudget } from "@svc/core";
import { chargedPerDay, findAccount, findKeyLimits, listLedger } from "@svc/use-cases";
import { authOf } from "../auth/authenticate.js";
import { route, type Route } from "../http/route.js";
import { testRuns } from "../runs/startRun.js";
import * as R from "../openapi/responses.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import { pageLimit, queryInt } from "../http/validate.js";

const ledgerQuery = z.object({
  limit: pageLimit,
  cursor: cursorSchema,
  run_id: z
    .string()
    .regex(/^run_[A-Za-z0-9]{1,64}$/, "expected a run id")
    .optional(),
});

const usageQuery = z.object({
  days: queryInt(1, 366, 30),
});

const DAY_MS = 86_400_000;

/** A ledger entry as GET /account/ledger and the operator's account page show it. */
export const presentLedgerEntry = (e: Awaited<ReturnType<typeof listLedger>>[number]) => ({
  id: e.id,
  kind: e.kind,
  amount: e.amount,
  balance_delta: e.balanceDelta,
  reserved_delta: e.reservedDelta,
  run_id: e.runId,
  note: e.note,
  created_at: e.createdAt.toISOString(),
});

// The caller's account: balance, reserved and available tokens; its ledger; tokens charged per
// day. Tokens are live mode's alone (test runs never touch them): a test key sees a world without
// tokens (zeros, an empty ledger) and no live run id, as Stripe's test mode has its own balance.
const tags = ["Account"];

const readAccount = route({
  method: "get",
  path: "/account",
  tags,
  summary: "The account's tokens: balance, reserved and available",
  reply: { status: 200, schema: R.AccountResponse, description: "The caller's account" },
  async handler(_input, { res, deps }) {
    const auth = authOf(res);
    // While Redis is away the allowance comes from this process's own count (the insurance limiter).
    const [account, allowance, key] = await Promise.all([
      findAccount(deps.db, auth.accountId),
      testRuns(deps).allowance(auth.accountId),
      auth.keyId ? findKeyLimits(deps.db, auth.keyId) : null,
    ]);
    if (!account) throw new ApiError("UNAUTHORIZED", "This key's account no longer exists.");
    const live = auth.mode === "live";
    return {
      data: {
        id: account.id,
        name: account.name,
        balance: live ? account.balance : 0,
        reserved: live ? account.reserved : 0,
        available: live ? account.balance - account.reserved : 0,
        mode: auth.mode,
        max_concurrent_runs: concurrencyLimit(account, deps.settings.ACCOUNT_MAX_CONCURRENT_RUNS),
        weight: account.weight,
        // A live figure: a test key sees none (its world has no balance to watch).
        low_balance_threshold: live ? account.lowBalanceThreshold : null,
        key: key && {
          id: key.id,
          expires_at: key.expiresAt?.toISOString() ?? null,
          allowed_models: key.allowedModels.length ? key.allowedModels : null,
          budget: presentBudget(key),
          max_concurrent_runs: key.maxConcurrentRuns,
        },
        test_runs: {
          limit: allowance.limit,
          remaining: allowance.limit - allowance.used,
          resets_at: allowance.resetsAt?.toISOString() ?? null,
        },
      },
    };
  },
});

const readLedger = route({
  method: "get",
  path: "/account/ledger",
  tags,
  summary: "The account's ledger, newest first (grants, reservations, charges, releases)",
  description: "Live mode's tokens only: a test key gets an empty ledger (test runs never touch tokens).",
  query: ledgerQuery,
  reply: { status: 200, schema: R.LedgerPage, description: "A page of ledger entries" },
  async handler({ query }, { res, deps: { db } }) {
    if (authOf(res).mode === "test") return { data: { entries: [], next_cursor: null } };
    const entries = await listLedger(db, {
      accountId: authOf(res).accountId,
      runId: query.run_id,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const { page, nextCursor } = paginate(entries, query.limit);
    return {
      data: {
        entries: page.map(presentLedgerEntry),
        next_cursor: nextCursor,
      },
    };
  },
});

const readUsage = route({
  method: "get",
  path: "/account/usage",
  tags,
  summary: "Tokens charged per UTC day (today included)",
  query: usageQuery,
  reply: { status: 200, schema: R.UsageResponse, description: "One entry per day, oldest first" },
  async handler({ query: { days } }, { res, deps: { db } }) {
    // Whole UTC days, today included: the first is days - 1 days before today.
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const since = new Date(today - (days - 1) * DAY_MS);
    const auth = authOf(res);
    const charged = new Map(
      auth.mode === "live" ? (await chargedPerDay(db, auth.accountId, since)).map((d) => [d.day, d]) : [],
    );
    const series = Array.from({ length: days }, (_, i) => {
      const day = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      const found = charged.get(day);
      return { date: day, tokens_charged: found?.tokens ?? 0, runs_charged: found?.runs ?? 0 };
    });
    return {
      data: { days: series, total_tokens_charged: series.reduce((sum, d) => sum + d.tokens_charged, 0) },
    };
  },
});

export const accountRoutes: Route[] = [readAccount, readLedger, readUsage];
