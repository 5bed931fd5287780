import { Router, type RequestHandler } from "express";
import { z } from "zod";
import {
  ApiError,
  emailSchema,
  mayManageCredentials,
  PASSWORD_MAX,
  presentRunDetail,
  runIdView,
  type Mode,
} from "@svc/core";
import {
  findActiveKey,
  findRunForAccount,
  listAudit,
  setLowBalanceThreshold,
  signIn,
  signOut,
} from "@svc/use-cases";
import { authOf, type AuthContext } from "../auth/authenticate.js";
import type { AppDeps } from "../deps.js";
import { checkJsonBody } from "../http/boundary.js";
import { notFound } from "../http/errorHandler.js";
import { jsonBodies, parseJsonBody, requireJsonBody } from "../http/jsonBody.js";
import { mountRoutes, perApp, route, type Guards, type RouteGroup } from "../http/route.js";
import * as R from "../openapi/consoleResponses.js";
import { API_V1 } from "../routes/api.js";
import {
  clearSessionCookie,
  requireCsrfToken,
  requireSession,
  sameOrigin,
  sessionOf,
  sessionPolicy,
  sessionToken,
  setSessionCookie,
} from "./session.js";
import { createKey, listKeys, revokeKey, updateKey } from "./keys.js";
import { auditPage, OPERATOR_ROUTES, operatorsOnly } from "./operator/index.js";
import { cursorSchema } from "../http/cursor.js";
import { pageLimit } from "../http/validate.js";
import { signInLimit } from "./signInLimit.js";

export const CONSOLE_API = "/console/api";
/** The console's calls to the API's own operations: /console/api/live/runs is GET /api/v1/runs. */
export const CONSOLE_SCOPED = `${CONSOLE_API}/:mode`;
/** The console's own operations under a mode (documented as such, not as API operations). */
const CONSOLE_BY_MODE = `${CONSOLE_API}/{mode}`;

const signInBody = z.strictObject({
  email: z.string().max(320),
  password: z.string().max(PASSWORD_MAX * 4),
});

const KEY_CHOICE_HEADER = "x-api-key-id";

const ownersOnly: RequestHandler = (_req, res, next) => {
  if (!mayManageCredentials(sessionOf(res).user.role))
    throw new ApiError("FORBIDDEN", "Only an owner of the account can do this.");
  next();
};

const secureCookie = (deps: AppDeps) => deps.settings.PUBLIC_BASE_URL.startsWith("https:");
const signIns = perApp(({ settings, redis }) =>
  settings.RATE_LIMIT_ENABLED
    ? signInLimit(
        redis,
        settings.QUEUE_PREFIX,
        settings.SIGN_IN_ATTEMPTS_PER_EMAIL,
        settings.SIGN_IN_ATTEMPTS_PER_ADDRESS,
      )
    : null,
);

const signInRoute = route({
  method: "post",
  path: "/session",
  summary: "Sign in with email and password; sets the session cookie",
  body: { schema: signInBody, example: { email: "demo@example.com", password: "correct horse battery" } },
  security: [],
  reply: { status: 201, schema: R.SignedIn, description: "Signed in" },
  async handler({ body }, { req, res, deps }) {
    const email = emailSchema.safeParse(body.email);
    const limit = signIns(deps);
    await limit?.attempt(email.success ? email.data : body.email, req.ip ?? "unknown");
    const session = email.success
      ? await signIn(deps.db, email.data, body.password, sessionPolicy(deps.settings))
      : null;
    // One answer for an unknown email, a wrong password and a disabled user.
    if (!session || !email.success) throw new ApiError("UNAUTHORIZED", "Wrong email or password.");
    await limit?.succeeded(email.data, req.ip ?? "unknown");
    setSessionCookie(res, secureCookie(deps), session.token, session.expiresAt);
    return { data: { csrf_token: session.csrfToken, expires_at: session.expiresAt.toISOString() } };
  },
});

const sessionRoute = route({
  method: "get",
  path: "/session",
  summary: "The signed-in person, their account and the CSRF token",
  reply: { status: 200, schema: R.SessionResponse, description: "The session" },
  handler(_input, { res }) {
    const { user, csrfToken, expiresAt } = sessionOf(res);
    return {
      data: {
        user: { id: user.id, email: user.email, role: user.role },
        account: user.account,
        csrf_token: csrfToken,
        expires_at: expiresAt.toISOString(),
      },
    };
  },
});

const signOutRoute = route({
  method: "post",
  path: "/session/sign-out",
  summary: "End the session",
  reply: { status: 200, schema: R.SignedOut, description: "Signed out" },
  async handler(_input, { req, res, deps }) {
    await signOut(deps.db, sessionToken(req.get("cookie")) ?? "");
    clearSessionCookie(res, secureCookie(deps));
    return { data: { signed_out: true as const } };
  },
});

const accountAlerts = route({
  method: "patch",
  path: "/account/alerts",
  summary: "Set the low-balance threshold of account.balance_low (owners)",
  description:
    "account.balance_low goes to live webhook endpoints subscribed to it when a reservation leaves available tokens below the threshold, once; setting the threshold (or a grant that brings available tokens back to it) arms it again. null: no alert.",
  body: {
    schema: z.strictObject({
      low_balance_threshold: z.int("expected a whole number of tokens").min(1).max(2_000_000_000).nullable(),
    }),
    example: { low_balance_threshold: 500 },
  },
  guards: ["owners"],
  errors: [400],
  reply: { status: 200, schema: R.AccountAlerts, description: "The threshold now" },
  async handler({ body }, { res, deps }) {
    await setLowBalanceThreshold(deps.db, sessionOf(res).user.account.id, body.low_balance_threshold);
    return { data: { low_balance_threshold: body.low_balance_threshold } };
  },
});

const securityLog = route({
  method: "get",
  path: "/security-log",
  summary: "What operators of the service did to this account, newest first (owners)",
  description:
    "Every operator action on the account, from the console or the CLI: grants and deductions, scheduling, people added or changed (an operator may add an owner, for instance to help someone locked out), keys made or revoked by the CLI; who, when, before and after, and the reason they gave.",
  query: z.object({ limit: pageLimit, cursor: cursorSchema.optional() }),
  guards: ["owners"],
  reply: { status: 200, schema: R.AuditPage, description: "A page of the account's security log" },
  async handler({ query }, { res, deps }) {
    const entries = await listAudit(deps.db, {
      accountId: sessionOf(res).user.account.id,
      after: query.cursor,
      limit: query.limit + 1,
    });
    return { data: auditPage(entries, query.limit) };
  },
});

const runDetail = route({
  method: "get",
  path: "/runs/{runId}/detail",
  summary: "Everything the run page shows: input, output, error, timestamps, tokens",
  params: z.object({ runId: runIdView }),
  errors: [404],
  reply: { status: 200, schema: R.RunDetailResponse, description: "The run" },
  async handler({ params: { runId } }, { res, deps }) {
    res.locals.mount = CONSOLE_BY_MODE;
    const auth = authOf(res);
    const run = await findRunForAccount(deps.db, runId, auth.accountId, auth.mode);
    if (!run) throw new ApiError("RUN_NOT_FOUND", `No run with id ${JSON.stringify(runId)}.`);
    return { data: await deps.outputs.urls.resolve(presentRunDetail(run)) };
  },
});

const CONSOLE_COMMON = {
  security: [{ consoleSession: [] }],
  errors: [400, 401, 403, 413, 415, 429, 500, 503],
  rateHeaders: false,
  tags: ["Console"],
};

/**
 * The web console's own operations, authenticated by its session cookie (and X-CSRF-Token on
 * every state-changing request). The console reaches every /api/v1 operation at
 * /console/api/{live|test}/… with the same session.
 */
export const CONSOLE: RouteGroup = {
  prefix: CONSOLE_API,
  ...CONSOLE_COMMON,
  routes: [
    signInRoute,
    sessionRoute,
    signOutRoute,
    listKeys,
    createKey,
    updateKey,
    revokeKey,
    accountAlerts,
    securityLog,
    ...OPERATOR_ROUTES,
  ],
};
export const CONSOLE_MODE: RouteGroup = {
  prefix: CONSOLE_BY_MODE,
  params: z.object({ mode: z.enum(["live", "test"]) }),
  ...CONSOLE_COMMON,
  routes: [runDetail],
};

/**
 * The console's API, authenticated by the session cookie: sign-in and sign-out, API keys (which
 * the public API never manages), and at /console/api/{live|test}/… the public API's own routes
 * and use-cases, scoped to the person's account and the chosen mode.
 */
export function consoleApi(
  deps: AppDeps,
  limits: { all: RequestHandler; runCreation: RequestHandler } | undefined,
): Router {
  const { settings } = deps;
  const body = [requireJsonBody, parseJsonBody(settings.BODY_LIMIT_BYTES), checkJsonBody];
  const guards: Guards = {
    runCreation: limits?.runCreation ?? null,
    owners: ownersOnly,
    operators: operatorsOnly,
  };
  const api = Router();
  api.use((_req, res, next) => {
    res.locals.mount = CONSOLE_API;
    next();
  }, sameOrigin(settings.PUBLIC_BASE_URL));

  mountRoutes(api, [signInRoute], deps, guards, body);
  api.use(requireSession(deps));
  mountRoutes(api, [sessionRoute], deps, guards);
  // The public API's routes below /:mode take JSON bodies too, but for its uploads.
  api.use(requireCsrfToken, ...jsonBodies(settings.BODY_LIMIT_BYTES, API_V1.routes, "/:mode"));
  mountRoutes(
    api,
    [signOutRoute, listKeys, createKey, updateKey, revokeKey, accountAlerts, securityLog],
    deps,
    guards,
  );
  mountRoutes(api, OPERATOR_ROUTES, deps, guards);

  api.use("/:mode", scopedApi(deps, guards, limits?.all));
  // What no route took stays a JSON 404 here, rather than falling to the pages' index.html.
  api.use(notFound);
  return api;
}

/** The public API's routes, with the session standing in for the key. */
function scopedApi(deps: AppDeps, guards: Guards, limitAll: RequestHandler | undefined): Router {
  const scoped = Router({ mergeParams: true });
  scoped.use(async (req, res, next) => {
    const mode = (req.params as { mode?: string }).mode;
    if (mode !== "live" && mode !== "test")
      throw new ApiError("NOT_FOUND", "Console data lives under /console/api/live or /console/api/test.");
    res.locals.mount = CONSOLE_SCOPED;
    const { user, id: sessionId } = sessionOf(res);
    const chosen = req.get(KEY_CHOICE_HEADER);
    const key = chosen ? await findActiveKey(deps.db, user.account.id, mode as Mode, chosen) : null;
    if (chosen && !key)
      throw new ApiError("VALIDATION_ERROR", "Unknown API key.", [
        { path: "X-Api-Key-Id", message: `expected an active ${mode} key of this account` },
      ]);
    const auth: AuthContext = {
      accountId: user.account.id,
      mode: mode as Mode,
      keyId: key?.id ?? null,
      userId: user.id,
      sessionId,
      // A run made in the console on behalf of a key keeps to that key's models.
      ...(key?.allowedModels.length && { allowedModels: key.allowedModels }),
      ...(key && key.maxConcurrentRuns !== null && { keyMaxConcurrentRuns: key.maxConcurrentRuns }),
    };
    res.locals.auth = auth;
    next();
  });
  if (limitAll) scoped.use(limitAll);
  mountRoutes(scoped, CONSOLE_MODE.routes, deps, guards);
  mountRoutes(scoped, API_V1.routes, deps, guards);
  return scoped;
}
