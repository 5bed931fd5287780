import type { RequestHandler, Response } from "express";
import { ApiError, bearerToken, hashApiKey, parseApiKeyMode, type Mode } from "@svc/core";
import { findApiKeyByHash, touchApiKey } from "@svc/db";
import type { AppDeps } from "../deps.js";

export interface AuthContext {
  accountId: string;
  keyId: string;
  mode: Mode;
}

interface CachedKey {
  auth: AuthContext | null;
  expiresAt: number;
}

const TOUCH_INTERVAL_MS = 60_000;

/** The caller's identity, set by authenticate(). */
export function authOf(res: Response): AuthContext {
  return res.locals.auth as AuthContext;
}

/**
 * Bearer API keys, looked up by hash. A short per-process cache (AUTH_CACHE_TTL_MS) saves a query
 * per request; a revoked key therefore stops working within that TTL on every replica.
 * last_used_at is written at most once a minute per key, off the request path.
 */
export function authenticate({ db, config, logger }: AppDeps): RequestHandler {
  const cache = new Map<string, CachedKey>();
  const lastTouched = new Map<string, number>();

  async function lookup(hash: string): Promise<AuthContext | null> {
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.expiresAt > now) return hit.auth;
    const key = await findApiKeyByHash(db, hash);
    const auth = key && !key.revokedAt ? { accountId: key.accountId, keyId: key.id, mode: key.mode } : null;
    if (config.AUTH_CACHE_TTL_MS > 0) {
      if (cache.size > 10_000) cache.clear();
      cache.set(hash, { auth, expiresAt: now + config.AUTH_CACHE_TTL_MS });
    }
    return auth;
  }

  function touch(keyId: string) {
    const now = Date.now();
    if ((lastTouched.get(keyId) ?? 0) + TOUCH_INTERVAL_MS > now) return;
    lastTouched.set(keyId, now);
    touchApiKey(db, keyId, new Date(now)).catch((error: unknown) =>
      logger.warn("last_used_at update failed", { key_id: keyId, error }),
    );
  }

  return async (req, res, next) => {
    const header = req.get("authorization");
    if (!header)
      throw new ApiError(
        "UNAUTHORIZED",
        "Missing Authorization header; send `Authorization: Bearer <API key>`.",
      );
    const token = bearerToken(header);
    if (!token)
      throw new ApiError("UNAUTHORIZED", "Malformed Authorization header; expected `Bearer <API key>`.");
    if (!parseApiKeyMode(token))
      throw new ApiError("UNAUTHORIZED", "Malformed API key; keys start with svc_live_ or svc_test_.");
    const auth = await lookup(hashApiKey(token));
    if (!auth) throw new ApiError("UNAUTHORIZED", "Invalid or revoked API key.");
    res.locals.auth = auth;
    touch(auth.keyId);
    next();
  };
}
