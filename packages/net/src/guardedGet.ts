import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { createSecureContext, rootCertificates } from "node:tls";
import { Agent, request, type Dispatcher } from "undici";
import { isInternalAddress, REFUSED_ADDRESS } from "@svc/core";
import { guardedLookup } from "./lookups.js";

/** A URL the service will not fetch from (an internal address, too many redirects, not http(s)). */
export class RefusedUrl extends Error {
  constructor(readonly why: string) {
    super(`refused: ${why}`);
    this.name = "RefusedUrl";
  }
}

export interface GuardedGetOptions {
  /** Loopback and private addresses allowed everywhere (local development, tests). */
  allowPrivate: boolean;
  /** Origins that may be internal (a model's own servers). */
  trustedOrigins?: ReadonlySet<string>;
  /** Only https (file inputs); else http too. */
  httpsOnly?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Agents for the trusted and the guarded connections (guardedAgents()). */
  agents: GuardedAgents;
}

export interface GuardedAgents {
  plain: Dispatcher;
  guarded: Dispatcher;
}

/**
 * Whether a URL's host is an internal IP literal: a literal is never looked up, so the guarded
 * lookup cannot refuse it; it is checked before the request instead.
 */
export function isInternalLiteral(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return isIP(host) !== 0 && isInternalAddress(host);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

/**
 * Agents for guardedGet: the guarded one checks every address it connects to (DNS rebinding), and
 * both trust an extra CA when given one (TLS is always verified). They hold no sockets until used.
 */
export function guardedAgents(
  caFile?: string,
  options: { connections?: number; connectTimeoutMs?: number } = {},
): GuardedAgents {
  // The extra CA goes in as one prebuilt secure context, not rebuilt per connection.
  const secureContext = caFile
    ? createSecureContext({ ca: [...rootCertificates, readFileSync(caFile, "utf8")] })
    : undefined;
  const connect = {
    ...(secureContext && { secureContext }),
    ...(options.connectTimeoutMs && { timeout: options.connectTimeoutMs }),
  };
  const pool = options.connections ? { connections: options.connections } : {};
  return {
    plain: new Agent({ ...pool, connect }),
    guarded: new Agent({ ...pool, connect: { ...connect, lookup: guardedLookup as never } }),
  };
}

/**
 * A GET of a URL someone outside chose, with the webhook sender's protections: no internal address
 * (checked on an IP literal here, on every resolved address at connect time) unless allowed or the
 * origin is trusted, redirects followed by hand (at most 3, each hop checked again), time-outs.
 * Answers the last response, whatever its status; its body is the caller's to read or dump.
 */
export async function guardedGet(url: string, options: GuardedGetOptions): Promise<Dispatcher.ResponseData> {
  let target = new URL(url);
  for (let hop = 0; ; hop++) {
    const schemes = options.httpsOnly ? ["https:"] : ["http:", "https:"];
    if (!schemes.includes(target.protocol))
      throw new RefusedUrl(`not ${options.httpsOnly ? "https" : "http(s)"}`);
    const trusted = options.allowPrivate || !!options.trustedOrigins?.has(target.origin);
    if (!trusted && isInternalLiteral(target)) throw new RefusedUrl("an internal address");
    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, {
        dispatcher: trusted ? options.agents.plain : options.agents.guarded,
        signal: options.signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === REFUSED_ADDRESS)
        throw new RefusedUrl("an internal address");
      throw error;
    }
    if (!REDIRECTS.has(response.statusCode)) return response;
    await response.body.dump();
    const location = response.headers.location;
    if (typeof location !== "string") throw new RefusedUrl(`a ${response.statusCode} without a Location`);
    if (hop >= MAX_REDIRECTS) throw new RefusedUrl(`more than ${MAX_REDIRECTS} redirects`);
    target = new URL(location, target);
  }
}
