import type { RequestHandler, Response } from "express";
import { ApiError, bearerToken, hashApiKey, parseApiKeyMode, ttlCache, type Mode } from "@svc/core";
import { findApiKeyByHash, touchApiKey } from "@svc/use-cases";
import type { AppDeps } from "../deps.js";
import type { AuthFailureLimit } from "../http/rateLimit.js";

export interface AuthContext {
  accountId: string;
  /** The API key of the request; from the console, the key a person chose for a run, if any. */
  keyId: string | null;
  mode: Mode;
  /** The console user and session of a session-authenticated request. */
  userId?: string;
  sessionId?: string;
  /** The models the key may run, when its owner limited them (absent: every model). */
  allowedModels?: readonly string[];
  /** The key's own limit of runs executing at once (absent: the account's alone). */
  keyMaxConcurrentRuns?: number;
}

/** Who is counted by the rate limits: the API key, or the signed-in person. */
export function principalOf(auth: AuthContext): string {
  return auth.keyId ?? `user:${auth.userId}`;
}

type KeyAuth = AuthContext & { keyId: string };

interface KnownKey {
  auth: KeyAuth | null;
  /** When the key itself expires (its owner's setting), checked at every request. */
  keyExpiresAt: Date | null;
}

const TOUCH_INTERVAL_MS = 60_000;

/** The caller's identity, set by authenticate(). */
export function authOf(res: Response): AuthContext {
  return res.locals.auth as AuthContext;
}

/** How long an unknown or revoked key's hash is remembered: neither can become valid again. */
const NEGATIVE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Bearer API keys, looked up by hash. A short per-process cache (AUTH_CACHE_TTL_MS) saves a query
 * per request (requests that miss it together share one); a revoked key therefore stops working within that TTL on every replica. Unknown
 * and revoked keys are remembered longer (a new key is random, so an unknown hash stays unknown).
 * Every key is looked up whatever its address did: a valid key is never refused for others'
 * failures (30 bad keys from a shared NAT or proxy address must not lock its users out); an
 * address that keeps failing gets 429 instead of 401 for its failures. Guessing a 256-bit key is
 * hopeless, and a failure costs one indexed lookup. last_used_at is written at most once a
 * minute per key, off the request path.
 */
export function authenticate({ db, settings, logger }: AppDeps, failures?: AuthFailureLimit): RequestHandler {
  const lastTouched = new Map<string, number>();
  const lookup = ttlCache(
    async (hash): Promise<KnownKey> => {
      const key = await findApiKeyByHash(db, hash);
      const auth: KeyAuth | null =
        key && !key.revokedAt
          ? {
              accountId: key.accountId,
              keyId: key.id,
              mode: key.mode,
              ...(key.allowedModels?.length && { allowedModels: key.allowedModels }),
              ...(key.maxConcurrentRuns !== null && { keyMaxConcurrentRuns: key.maxConcurrentRuns }),
            }
          : null;
      return { auth, keyExpiresAt: key?.expiresAt ?? null };
    },
    ({ auth }) => (auth ? settings.AUTH_CACHE_TTL_MS : NEGATIVE_TTL_MS),
    CACHE_MAX,
  );

  function touch(keyId: string) {
    const now = Date.now();
    if ((lastTouched.get(keyId) ?? 0) + TOUCH_INTERVAL_MS > now) return;
    lastTouched.set(keyId, now);
    touchApiKey(db, keyId, new Date(now)).catch((error: unknown) =>
      logger.warn("last_used_at update failed", { key_id: keyId, error }),
    );
  }

  const refuse = async (ip: string, message: string): Promise<never> => {
    await failures?.failed(ip);
    throw new ApiError("UNAUTHORIZED", message);
  };

  return async (req, res, next) => {
    const ip = req.ip ?? "unknown";
    const header = req.get("authorization");
    if (!header) return refuse(ip, "Missing Authorization header; send `Authorization: Bearer <API key>`.");
    const token = bearerToken(header);
    if (!token) return refuse(ip, "Malformed Authorization header; expected `Bearer <API key>`.");
    if (!parseApiKeyMode(token))
      return refuse(ip, "Malformed API key; keys start with svc_live_ or svc_test_.");
    const { auth, keyExpiresAt } = await lookup(hashApiKey(token));
    if (!auth) return refuse(ip, "Invalid or revoked API key.");
    if (keyExpiresAt && keyExpiresAt.getTime() <= Date.now())
      return refuse(ip, `This API key expired at ${keyExpiresAt.toISOString()}.`);
    res.locals.auth = auth;
    touch(auth.keyId);
    next();
  };
}

/** Whose things a request reaches: the caller's account, in its key's (or session's) mode. */
export function ownerOf(res: Response): { accountId: string; mode: Mode } {
  const { accountId, mode } = authOf(res);
  return { accountId, mode };
}
