import { timingSafeEqual } from "node:crypto";
import type { RequestHandler, Response } from "express";
import { parse as parseCookies } from "cookie";
import { ApiError } from "@svc/core";
import type { SessionRecord } from "@svc/db";
import { resolveSession, type SessionPolicy } from "@svc/use-cases";
import type { AppDeps } from "../deps.js";

export const SESSION_COOKIE = "svc_session";
export const COOKIE_PATH = "/console";
export const CSRF_HEADER = "x-csrf-token";

export function sessionPolicy(settings: AppDeps["settings"]): SessionPolicy {
  return {
    idleMs: settings.CONSOLE_SESSION_IDLE_MINUTES * 60_000,
    absoluteMs: settings.CONSOLE_SESSION_MAX_HOURS * 3_600_000,
  };
}

/** The signed-in session, set by requireSession(). */
export function sessionOf(res: Response): SessionRecord {
  return res.locals.session as SessionRecord;
}

export function sessionToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  try {
    return parseCookies(cookieHeader)[SESSION_COOKIE];
  } catch {
    return undefined;
  }
}

/** HttpOnly, SameSite=Lax, Secure whenever the service is served over https, scoped to /console. */
export function setSessionCookie(res: Response, secure: boolean, token: string, expires: Date) {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", secure, path: COOKIE_PATH, expires });
}

export function clearSessionCookie(res: Response, secure: boolean) {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: "lax", secure, path: COOKIE_PATH });
}

/** 401 without a live session (unknown, expired, idle, user disabled). */
export function requireSession({ db, settings }: AppDeps): RequestHandler {
  const policy = sessionPolicy(settings);
  return async (req, res, next) => {
    const token = sessionToken(req.get("cookie"));
    const session = token && token.length <= 128 ? await resolveSession(db, token, policy) : null;
    if (!session)
      throw new ApiError("UNAUTHORIZED", "Not signed in, or the session has ended; sign in again.");
    res.locals.session = session;
    next();
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Synchronizer-token CSRF protection: every state-changing console request carries the session's
 * token in X-CSRF-Token, which another site's page can neither read nor send.
 */
export const requireCsrfToken: RequestHandler = (req, res, next) => {
  if (SAFE_METHODS.has(req.method)) return next();
  const sent = req.get(CSRF_HEADER);
  if (!sent || !sameText(sent, sessionOf(res).csrfToken))
    throw new ApiError("FORBIDDEN", "Missing or wrong X-CSRF-Token; reload the console and try again.");
  next();
};

/**
 * A browser names the page that sent a state-changing request in Origin: one of another site is
 * refused outright (defence in depth next to SameSite and the CSRF token, and the only guard of
 * sign-in, which has no session yet).
 */
export function sameOrigin(publicBaseUrl: string): RequestHandler {
  const allowed = new URL(publicBaseUrl).origin;
  return (req, _res, next) => {
    const origin = req.get("origin");
    if (SAFE_METHODS.has(req.method) || !origin) return next();
    const own = `${req.protocol}://${req.get("host")}`;
    if (origin !== allowed && origin !== own)
      throw new ApiError("FORBIDDEN", "Cross-site requests to the console are refused.");
    next();
  };
}
