import { Router, type RequestHandler } from "express";
import { z } from "zod";
import {
  ApiError,
  emailSchema,
  mayManageCredentials,
  PASSWORD_MAX,
  presentRunDetail,
  type Mode,
} from "@svc/core";
import { createApiKey, findActiveKey, findRunForAccount, listApiKeys, revokeAccountKey } from "@svc/db";
import { signIn, signOut } from "@svc/use-cases";
import type { AuthContext } from "../auth/authenticate.js";
import type { AppDeps } from "../deps.js";
import { checkJsonBody } from "../http/boundary.js";
import { notFound } from "../http/errorHandler.js";
import { parseJsonBody, requireJsonBody } from "../http/jsonBody.js";
import { validate } from "../http/validate.js";
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
import type { SignInLimit } from "./signInLimit.js";

export const CONSOLE_API = "/console/api";
/** The console's calls to the API's own operations: /console/api/live/runs is GET /api/v1/runs. */
export const CONSOLE_SCOPED = `${CONSOLE_API}/:mode`;
/** The console's own operations under a mode (documented as such, not as API operations). */
const CONSOLE_DETAIL = `${CONSOLE_API}/{mode}`;

export const signInBody = z.strictObject({
  email: z.string().max(320),
  password: z.string().max(PASSWORD_MAX * 4),
});

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1, "expected a name").max(100, "expected at most 100 characters"),
  mode: z.enum(["live", "test"], "expected live or test"),
});

const KEY_CHOICE_HEADER = "x-api-key-id";

function presentKey(k: Awaited<ReturnType<typeof listApiKeys>>[number]) {
  return {
    id: k.id,
    name: k.name,
    mode: k.mode,
    prefix: k.prefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}

const ownersOnly: RequestHandler = (_req, res, next) => {
  if (!mayManageCredentials(sessionOf(res).user.role))
    throw new ApiError("FORBIDDEN", "Only an owner of the account can do this.");
  next();
};

/**
 * The console's API, authenticated by the session cookie: sign-in and sign-out, API keys (which
 * the public API never manages), and at /console/api/{live|test}/… the public API's own routes
 * and use-cases, scoped to the person's account and the chosen mode.
 */
export function consoleApi(
  deps: AppDeps,
  operations: Router,
  signInLimit: SignInLimit | undefined,
  limitAll: RequestHandler | undefined,
): Router {
  const { db, config } = deps;
  const policy = sessionPolicy(config);
  const secure = config.PUBLIC_BASE_URL.startsWith("https:");
  const body = [requireJsonBody, parseJsonBody(config.BODY_LIMIT_BYTES), checkJsonBody];
  const api = Router();
  api.use((_req, res, next) => {
    res.locals.mount = CONSOLE_API;
    next();
  }, sameOrigin(config.PUBLIC_BASE_URL));

  api.post("/session", ...body, async (req, res) => {
    const input = validate(signInBody, req.body ?? {}, "body");
    const email = emailSchema.safeParse(input.email);
    await signInLimit?.attempt(email.success ? email.data : input.email, req.ip ?? "unknown");
    const session = email.success ? await signIn(db, email.data, input.password, policy) : null;
    // One answer for an unknown email, a wrong password and a disabled user.
    if (!session || !email.success) throw new ApiError("UNAUTHORIZED", "Wrong email or password.");
    await signInLimit?.succeeded(email.data);
    setSessionCookie(res, secure, session.token, session.expiresAt);
    res
      .status(201)
      .json({ data: { csrf_token: session.csrfToken, expires_at: session.expiresAt.toISOString() } });
  });

  api.use(requireSession(deps));
  api.get("/session", (_req, res) => {
    const { user, csrfToken, expiresAt } = sessionOf(res);
    res.json({
      data: {
        user: { id: user.id, email: user.email, role: user.role },
        account: user.account,
        csrf_token: csrfToken,
        expires_at: expiresAt.toISOString(),
      },
    });
  });
  api.use(requireCsrfToken, ...body);

  api.post("/session/sign-out", async (req, res) => {
    await signOut(db, sessionToken(req.get("cookie")) ?? "");
    clearSessionCookie(res, secure);
    res.json({ data: { signed_out: true } });
  });

  api.get("/keys", async (_req, res) => {
    const keys = await listApiKeys(db, sessionOf(res).user.account.id);
    res.json({ data: { keys: keys.reverse().map(presentKey) } });
  });
  api.post("/keys", ownersOnly, async (req, res) => {
    const input = validate(createKeyBody, req.body ?? {}, "body");
    const { record, key } = await createApiKey(db, sessionOf(res).user.account.id, input.mode, input.name);
    res.status(201).json({
      data: { ...presentKey(record), key },
      message: "Copy the key now: it is shown only once and cannot be retrieved again.",
    });
  });
  api.post("/keys/:keyId/revoke", ownersOnly, async (req, res) => {
    const keyId = String(req.params.keyId);
    const revoked = await revokeAccountKey(db, sessionOf(res).user.account.id, keyId);
    if (!revoked) throw new ApiError("NOT_FOUND", `No API key with id ${JSON.stringify(keyId)}.`);
    res.json({ data: { id: revoked.id, revoked_at: (revoked.revokedAt ?? new Date()).toISOString() } });
  });

  api.use("/:mode", scopedApi(deps, operations, limitAll));
  // What no route took stays a JSON 404 here, rather than falling to the pages' index.html.
  api.use(notFound);
  return api;
}

/** The public API's routers, with the session standing in for the key. */
function scopedApi(deps: AppDeps, operations: Router, limitAll: RequestHandler | undefined): Router {
  const scoped = Router({ mergeParams: true });
  scoped.use(async (req, res, next) => {
    const mode = (req.params as { mode?: string }).mode;
    if (mode !== "live" && mode !== "test")
      throw new ApiError("NOT_FOUND", "Console data lives under /console/api/live or /console/api/test.");
    res.locals.mount = CONSOLE_SCOPED;
    const { user } = sessionOf(res);
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
    };
    res.locals.auth = auth;
    next();
  });
  // Webhook endpoints and their secrets are credentials: members may look, owners change.
  scoped.use("/webhooks", (req, res, next) => {
    const secretRead = req.method === "GET" && req.path === "/default/secret";
    if (req.method !== "GET" && req.method !== "HEAD") return ownersOnly(req, res, next);
    return secretRead ? ownersOnly(req, res, next) : next();
  });
  if (limitAll) scoped.use(limitAll);
  scoped.get("/runs/:runId/detail", async (req, res) => {
    res.locals.mount = CONSOLE_DETAIL;
    const auth = res.locals.auth as AuthContext;
    const runId = String(req.params.runId);
    const run = await findRunForAccount(deps.db, runId, auth.accountId, auth.mode);
    if (!run) throw new ApiError("RUN_NOT_FOUND", `No run with id ${JSON.stringify(runId)}.`);
    res.json({ data: await deps.outputs.urls.resolve(presentRunDetail(run)) });
  });
  scoped.use(operations);
  return scoped;
}
