import { Router } from "express";
import { z } from "zod";
import { ApiError } from "@svc/core";
import { chargedPerDay, findAccount, listLedger } from "@svc/db";
import { authOf } from "../auth/authenticate.js";
import type { AppDeps } from "../deps.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import { pageLimit, queryInt, validate } from "../http/validate.js";

export const ledgerQuery = z.object({
  limit: pageLimit,
  cursor: cursorSchema,
  run_id: z
    .string()
    .regex(/^run_[A-Za-z0-9]{1,64}$/, "expected a run id")
    .optional(),
});

export const usageQuery = z.object({
  days: queryInt(1, 366, 30),
});

const DAY_MS = 86_400_000;

/**
 * The caller's account: balance, reserved and available tokens; its ledger; tokens charged per
 * day. Tokens are one pot per account (test runs never touch it), so both modes see the same.
 */
export function accountRoutes({ db }: AppDeps): Router {
  const router = Router();

  router.get("/account", async (_req, res) => {
    const auth = authOf(res);
    const account = await findAccount(db, auth.accountId);
    if (!account) throw new ApiError("UNAUTHORIZED", "This key's account no longer exists.");
    res.json({
      data: {
        id: account.id,
        name: account.name,
        balance: account.balance,
        reserved: account.reserved,
        available: account.balance - account.reserved,
        mode: auth.mode,
      },
    });
  });

  router.get("/account/ledger", async (req, res) => {
    const query = validate(ledgerQuery, req.query, "query");
    const entries = await listLedger(db, {
      accountId: authOf(res).accountId,
      runId: query.run_id,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const { page, nextCursor } = paginate(entries, query.limit);
    res.json({
      data: {
        entries: page.map((e) => ({
          id: e.id,
          kind: e.kind,
          amount: e.amount,
          balance_delta: e.balanceDelta,
          reserved_delta: e.reservedDelta,
          run_id: e.runId,
          note: e.note,
          created_at: e.createdAt.toISOString(),
        })),
        next_cursor: nextCursor,
      },
    });
  });

  router.get("/account/usage", async (req, res) => {
    const { days } = validate(usageQuery, req.query, "query");
    // Whole UTC days, today included: the first is days - 1 days before today.
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const since = new Date(today - (days - 1) * DAY_MS);
    const charged = new Map((await chargedPerDay(db, authOf(res).accountId, since)).map((d) => [d.day, d]));
    const series = Array.from({ length: days }, (_, i) => {
      const day = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      const found = charged.get(day);
      return { date: day, tokens_charged: found?.tokens ?? 0, runs_charged: found?.runs ?? 0 };
    });
    res.json({
      data: { days: series, total_tokens_charged: series.reduce((sum, d) => sum + d.tokens_charged, 0) },
    });
  });

  return router;
}
