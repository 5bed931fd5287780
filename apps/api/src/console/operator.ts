// The operator console's API: every account (balance, reserved, usage, weight, concurrency),
// token grants and deductions with a reason, people per account, the model catalogue and its
// queues, and the audit log of all of it. Operators only (role "operator", made with the CLI);
// every change goes through packages/use-cases/src/operator, which writes the audit entry in the
// change's own transaction. No answer here carries a key's or an endpoint's secret.
import type { RequestHandler } from "express";
import { z } from "zod";
import {
  ACCOUNT_ROLES,
  ApiError,
  isOperator,
  MAX_TOKENS,
  MODEL_CATEGORIES,
  MODEL_PRICE_MAX,
  modelServerUrl,
  poolOf,
  PASSWORD_MAX,
} from "@svc/core";
import {
  accountsOverview,
  findModel,
  listAllModels,
  listApiKeys,
  listAudit,
  listLedger,
  listUsers,
} from "@svc/db";
import {
  addPerson,
  adjustTokens,
  changeModel,
  importCogModel,
  ImportRefused,
  openAccount,
  setAccountScheduling,
  updatePerson,
  type ActedBy,
} from "@svc/use-cases";
import { cursorSchema, paginate } from "../http/cursor.js";
import { pageLimit } from "../http/validate.js";
import { route, type Guard, type Route } from "../http/route.js";
import * as R from "../openapi/responses.js";
import { presentLedgerEntry } from "../routes/account.js";
import { modelId } from "../routes/models.js";
import { presentKey } from "./keys.js";
import { sessionOf } from "./session.js";

/** Where no signed-in person calls (an API key, no credential), no route is an operator's. */
export const nobody: RequestHandler = () => {
  throw new ApiError("FORBIDDEN", "Only an operator of the service, signed in to the console, can do this.");
};

export const operatorsOnly: RequestHandler = (_req, res, next) => {
  if (!isOperator(sessionOf(res).user.role))
    throw new ApiError("FORBIDDEN", "Only an operator of the service can do this.");
  next();
};

const OPERATORS: Guard[] = ["operators"];

/** The operator signed in, and the reason their request gives: what the audit entry records. */
const actedBy = (res: Parameters<typeof sessionOf>[0], reason: string): ActedBy => {
  const { user } = sessionOf(res);
  return { actor: { id: user.id, email: user.email }, reason };
};

/** Every operator action says why: the audit log and the account's security log show it. */
const NO_REASON = "expected a reason (the audit log and the account's security log show it)";
const reason = z.string(NO_REASON).trim().min(1, NO_REASON).max(500);

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

const accountId = z.string().max(100);
const tokensField = z.int("expected a whole number of tokens");

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
        if (result.deliveryIds.length)
          await deps.queues.enqueueDeliveries(result.deliveryIds).catch((error: unknown) =>
            deps.logger.warn("enqueue of deliveries failed; the sweeper will do it", {
              delivery_ids: result.deliveryIds,
              error: (error as Error).message,
            }),
          );
        return { data: presentAccount(await overviewOf(deps, params.accountId)) };
    }
  },
});

type PersonRow = Awaited<ReturnType<typeof listUsers>>[number];
const presentPerson = (p: PersonRow) => ({
  id: p.id,
  email: p.email,
  role: p.role,
  created_at: p.createdAt.toISOString(),
  last_sign_in_at: p.lastSignInAt?.toISOString() ?? null,
  disabled_at: p.disabledAt?.toISOString() ?? null,
});

const createPerson = route({
  method: "post",
  path: "/operator/accounts/{accountId}/people",
  guards: OPERATORS,
  summary: "Add a person (owner or member) who signs in to the account's console",
  params: z.object({ accountId }),
  body: {
    schema: z.strictObject({
      email: z.string().max(320),
      password: z.string().max(PASSWORD_MAX * 4),
      role: z.enum(ACCOUNT_ROLES, `expected one of ${ACCOUNT_ROLES.join(", ")}`),
      reason,
    }),
    example: {
      email: "ada@example.com",
      password: "a long enough password",
      role: "member",
      reason: "support ticket 4711: owner locked out",
    },
  },
  errors: [400, 404, 409],
  reply: { status: 201, schema: R.PersonResponse, description: "The person" },
  async handler({ params, body }, { res, deps }) {
    const { reason: why, ...person } = body;
    const result = await addPerson(deps.db, actedBy(res, why), params.accountId, person);
    switch (result.kind) {
      case "invalid":
        throw new ApiError("VALIDATION_ERROR", result.message, [
          { path: "password", message: result.message },
        ]);
      case "no_account":
        throw new ApiError("NOT_FOUND", `No account with id ${JSON.stringify(params.accountId)}.`);
      case "email_taken":
        throw new ApiError("VALIDATION_ERROR", "A person with this email exists already.", [
          { path: "email", message: "taken" },
        ]);
      case "created": {
        const [person] = (await listUsers(deps.db, params.accountId)).filter((u) => u.id === result.user.id);
        return { data: presentPerson(person!) };
      }
    }
  },
});

const changePerson = route({
  method: "patch",
  path: "/operator/people/{userId}",
  guards: OPERATORS,
  summary: "Change a person's role, or disable (ending their sessions) or enable them",
  params: z.object({ userId: z.string().max(100) }),
  body: {
    schema: z
      .strictObject({
        role: z.enum(ACCOUNT_ROLES, `expected one of ${ACCOUNT_ROLES.join(", ")}`).optional(),
        disabled: z.boolean().optional(),
        reason,
      })
      .refine((b) => b.role !== undefined || b.disabled !== undefined, "expected role or disabled"),
    example: { disabled: true, reason: "left the company" },
  },
  errors: [400, 404],
  reply: { status: 200, schema: R.PersonResponse, description: "The person now" },
  async handler({ params, body }, { res, deps }) {
    if (params.userId === sessionOf(res).user.id)
      throw new ApiError("VALIDATION_ERROR", "Operators are managed with the CLI.", [
        { path: "userId", message: "your own account" },
      ]);
    const { reason: why, ...change } = body;
    const changed = await updatePerson(deps.db, actedBy(res, why), params.userId, change);
    if (!changed) throw new ApiError("NOT_FOUND", `No person with id ${JSON.stringify(params.userId)}.`);
    if (changed === "operator")
      throw new ApiError("VALIDATION_ERROR", "Operators are managed with the CLI.", [
        { path: "userId", message: "an operator" },
      ]);
    return { data: presentPerson(changed) };
  },
});

type CatalogueModel = Awaited<ReturnType<typeof listAllModels>>[number];

/** A model as the operator's catalogue shows it; queue: its pool now (null: unlimited, or Redis away). */
const presentOperatorModel = (m: CatalogueModel, queue: Awaited<ReturnType<typeof poolHealth>> | null) => ({
  id: m.id,
  name: m.name,
  category: m.category,
  status: m.status,
  unit: m.pricing.unit,
  tokens_per_unit: m.pricing.tokens_per_unit,
  runner: m.runner.kind,
  servers: m.runner.kind === "cog" ? m.runner.servers : [],
  concurrency: m.runner.kind === "cog" ? m.runner.concurrency : null,
  max_queue: m.maxQueue,
  queue,
});

const listOperatorModels = route({
  method: "get",
  path: "/operator/models",
  guards: OPERATORS,
  summary: "The whole catalogue, whatever the status, with each limited model's queue health",
  reply: { status: 200, schema: R.OperatorModels, description: "Models" },
  async handler(_input, { deps }) {
    const models = await listAllModels(deps.db);
    return {
      data: {
        models: await Promise.all(
          models.map(async (m) =>
            presentOperatorModel(m, poolOf(m.runner) ? await poolHealth(deps, m.id).catch(() => null) : null),
          ),
        ),
      },
    };
  },
});

async function poolHealth(deps: Parameters<Route["serve"]>[0], pool: string) {
  const [stats, health] = await Promise.all([deps.scheduler.stats(pool), deps.scheduler.health(pool)]);
  return {
    capacity: stats.capacity,
    in_flight: stats.leased,
    queue_length: stats.queued,
    oldest_queued_at: stats.oldestQueuedAt?.toISOString() ?? null,
    servers_down: Object.entries(health)
      .filter(([, state]) => state === "down")
      .map(([server]) => server),
  };
}

const updateModel = route({
  method: "patch",
  path: "/operator/models/{modelId+}",
  guards: OPERATORS,
  summary: "Change a model's price, status, queue cap, or a Cog model's servers and concurrency",
  description:
    "New runs are priced and admitted by it within CATALOGUE_CACHE_TTL_MS; capacity follows at the pool monitor's next pass. Runs already made keep the price they reserved.",
  params: z.object({ modelId }),
  body: {
    schema: z
      .strictObject({
        tokens_per_unit: tokensField.min(0).max(MODEL_PRICE_MAX).optional(),
        status: z
          .string()
          .trim()
          .regex(/^[a-z][a-z_-]{0,31}$/, "expected a status such as active or deprecated")
          .optional(),
        max_queue: z.int().min(1).max(10_000_000).nullable().optional(),
        servers: z.array(modelServerUrl).min(1).max(100).optional(),
        concurrency: z.int().min(1).max(1000).optional(),
        reason,
      })
      .refine(
        ({ reason: _, ...change }) => Object.values(change).some((v) => v !== undefined),
        "expected a change",
      ),
    example: {
      tokens_per_unit: 6,
      servers: ["http://gpu-0:5000", "http://gpu-1:5000"],
      reason: "second GPU online",
    },
  },
  errors: [400, 404],
  reply: { status: 200, schema: R.OperatorModels, description: "The model now (a list of one)" },
  async handler({ params, body }, { res, deps }) {
    const result = await changeModel(deps.db, actedBy(res, body.reason), params.modelId, {
      ...(body.tokens_per_unit !== undefined && { tokensPerUnit: body.tokens_per_unit }),
      ...(body.status !== undefined && { status: body.status }),
      ...(body.max_queue !== undefined && { maxQueue: body.max_queue }),
      ...(body.servers !== undefined && { servers: body.servers }),
      ...(body.concurrency !== undefined && { concurrency: body.concurrency }),
    });
    if (result.kind === "not_found")
      throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(params.modelId)}.`);
    if (result.kind === "invalid")
      throw new ApiError("VALIDATION_ERROR", result.message, [{ path: "servers", message: result.message }]);
    return presentOne(deps, params.modelId);
  },
});

/** One model, as a list of one: what a change or an import answers. */
async function presentOne(deps: Parameters<Route["serve"]>[0], id: string) {
  return { data: { models: [presentOperatorModel((await findModel(deps.db, id))!, null)] } };
}

const importModel = route({
  method: "post",
  path: "/operator/models/import",
  guards: OPERATORS,
  summary: "Import a model served by a Cog server: its input schema from the server's /openapi.json",
  description:
    "The server may be on a private network, but never at a link-local or cloud metadata address. Its answers are not echoed: the import says the server could not be reached, or did not answer as a Cog server. An id that exists already is 409 MODEL_EXISTS unless `replace` is true (the audit entry then holds the model replaced). The model's public description never names the server.",
  body: {
    schema: z.strictObject({
      cog_url: modelServerUrl,
      id: z
        .string()
        .regex(/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/, "expected an id such as you/sdxl"),
      name: z.string().trim().min(1).max(200).optional(),
      category: z.enum(MODEL_CATEGORIES).default("image"),
      tokens_per_unit: tokensField.min(0).max(MODEL_PRICE_MAX),
      replace: z.boolean().default(false),
      reason,
    }),
    example: {
      cog_url: "http://gpu-0:5000",
      id: "you/sdxl",
      category: "image",
      tokens_per_unit: 5,
      reason: "new model for the spring launch",
    },
  },
  errors: [400, 409],
  reply: { status: 201, schema: R.OperatorModels, description: "The model (a list of one)" },
  async handler({ body }, { res, deps }) {
    const entry = await importCogModel(deps.db, actedBy(res, body.reason), {
      cog: body.cog_url,
      id: body.id,
      ...(body.name && { name: body.name }),
      category: body.category,
      price: body.tokens_per_unit,
      replace: body.replace,
    }).catch((error: unknown) => {
      if (!(error instanceof ImportRefused)) throw error;
      if (error.why === "exists")
        throw new ApiError("MODEL_EXISTS", error.message, [{ path: "id", message: "exists" }]);
      throw new ApiError("VALIDATION_ERROR", error.message, [{ path: "cog_url", message: error.message }]);
    });
    return presentOne(deps, entry.id);
  },
});

/** A page of audit entries (fetched limit + 1) as the operators' audit log and owners' security log show it. */
export function auditPage(entries: Awaited<ReturnType<typeof listAudit>>, limit: number) {
  const { page, nextCursor } = paginate(entries, limit);
  return {
    entries: page.map((e) => ({
      id: e.id,
      actor_email: e.actorEmail,
      action: e.action,
      account_id: e.accountId,
      target_id: e.targetId,
      before: e.before,
      after: e.after,
      reason: e.reason,
      created_at: e.createdAt.toISOString(),
    })),
    next_cursor: nextCursor,
  };
}

const readAudit = route({
  method: "get",
  path: "/operator/audit",
  guards: OPERATORS,
  summary: "The audit log, newest first: who did what to which account or model, before and after",
  query: z.object({ limit: pageLimit, cursor: cursorSchema.optional(), account_id: accountId.optional() }),
  reply: { status: 200, schema: R.AuditPage, description: "A page of the audit log" },
  async handler({ query }, { deps }) {
    const entries = await listAudit(deps.db, {
      ...(query.account_id && { accountId: query.account_id }),
      after: query.cursor,
      limit: query.limit + 1,
    });
    return { data: auditPage(entries, query.limit) };
  },
});

/** Every operator route, each behind the operators guard. */
export const OPERATOR_ROUTES: Route[] = [
  listAccounts,
  createAccount,
  readAccount,
  setScheduling,
  adjust,
  createPerson,
  changePerson,
  listOperatorModels,
  updateModel,
  importModel,
  readAudit,
];
