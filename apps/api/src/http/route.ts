import type { NextFunction, Request, RequestHandler, Response, Router } from "express";
import type { ResponseConfig, RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import type { AppDeps } from "../deps.js";
import { validate } from "./validate.js";
import type { ErrorStyle } from "./errorHandler.js";

// A route is declared once (method, path, request and response schemas, handler) and from that
// one declaration mounted on Express (mountRoutes) and documented in OpenAPI (openapi/register.ts).

type Method = "get" | "post" | "patch" | "delete";
type Fields = z.ZodObject;
type None = z.ZodObject<Record<never, never>>;

/**
 * Middleware a route asks for by name; every mount says what each name is there (null: nothing),
 * so that a mount cannot forget one. runCreation: the run-creation rate budget. owners: only an
 * owner of the account, where a person (the console) rather than an API key is calling. operators:
 * only an operator of the service (console only: where no person calls, nobody passes it).
 */
export type Guard = "runCreation" | "owners" | "operators";
export type Guards = Record<Guard, RequestHandler | null>;
/** What a guard may answer instead of the route, for the document. */
export const GUARD_ERRORS: Record<Guard, number[]> = { runCreation: [429], owners: [403], operators: [403] };

/** Response headers as documented: name -> description and example. */
export type HeaderDocs = Record<
  string,
  { description: string; schema: { type: "string"; example?: string } }
>;

export interface RouteInput<P extends Fields, Q extends Fields, H extends Fields, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  headers: z.output<H>;
  body: z.output<B>;
}

export interface RouteContext {
  req: Request;
  res: Response;
  next: NextFunction;
  deps: AppDeps;
}

interface Declaration<P extends Fields, Q extends Fields, H extends Fields, B extends z.ZodType> {
  method: Method;
  /** As documented, under its group's prefix: /runs/{runId}; {name+} also takes slashes (model ids). */
  path: string;
  /** Defaults to its group's. */
  tags?: string[];
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  /** Request headers by lower-case name, read with req.get. */
  headers?: H;
  body?: { schema: B; example: object };
  /** The body is a file the handler reads itself (no JSON parsing; documented as such). */
  upload?: boolean;
  /**
   * The body is JSON or a multipart form of these fields (files among them), as OpenAI's clients
   * send some requests: the handler reads it (readForm) and validates it with this schema.
   */
  form?: { schema: z.ZodType; example: object; files: readonly string[] };
  /** The body may also be JSON Lines (application/jsonl), which the handler reads as a stream. */
  lines?: boolean;
  /** Error statuses beyond those every route of its group may answer. */
  errors?: number[];
  guards?: Guard[];
  /** Defaults to its group's. */
  security?: RouteConfig["security"];
}

/** A JSON answer: the handler returns the body, typed by the response schema it is documented with. */
export interface JsonDeclaration<
  P extends Fields,
  Q extends Fields,
  H extends Fields,
  B extends z.ZodType,
  S extends z.ZodType,
> extends Declaration<P, Q, H, B> {
  reply: { status: number; schema: S; description: string; headers?: HeaderDocs };
  handler(input: RouteInput<P, Q, H, B>, ctx: RouteContext): z.input<S> | Promise<z.input<S>>;
}

/** Any other answer (an event stream, a file, text, a page): the handler writes it itself. */
export interface RawDeclaration<
  P extends Fields,
  Q extends Fields,
  H extends Fields,
  B extends z.ZodType,
> extends Declaration<P, Q, H, B> {
  responses: RouteConfig["responses"];
  handler(input: RouteInput<P, Q, H, B>, ctx: RouteContext): void | Promise<void>;
}

/** A declared route, its types erased: what groups list, mounts serve and the document registers. */
export interface Route {
  readonly declaration: Declaration<Fields, Fields, Fields, z.ZodType> & {
    reply?: JsonDeclaration<Fields, Fields, Fields, z.ZodType, z.ZodType>["reply"];
    responses?: Record<string, ResponseConfig>;
  };
  serve(deps: AppDeps): RequestHandler;
}

/**
 * Routes documented and mounted together: a path prefix (where its router is mounted), who may
 * call them (OpenAPI security) and the errors any of them can answer.
 */
export interface RouteGroup {
  prefix: string;
  /** Path parameters of the prefix itself (the console's /{mode}). */
  params?: Fields;
  security: NonNullable<RouteConfig["security"]>;
  errors: number[];
  /** Whether answers carry the per-key RateLimit-* headers. */
  rateHeaders: boolean;
  tags?: string[];
  routes: Route[];
  /** Another API style's errors (Replicate's, OpenAI's): how they are answered and documented. */
  errorStyle?: ErrorStyle & { schema: z.ZodType; text: Record<number, string> };
}

/** /models/{modelId+}/run -> /models/*modelId/run; /runs/{runId} -> /runs/:runId */
export const expressPath = (path: string) => path.replace(/\{(\w+)\+\}/g, "*$1").replace(/\{(\w+)\}/g, ":$1");
/** /models/{modelId+}/run -> /models/{modelId}/run */
export const documentedPath = (path: string) => path.replace(/\{(\w+)\+\}/g, "{$1}");

function parseInput(d: Declaration<Fields, Fields, Fields, z.ZodType>, req: Request) {
  // A {name+} parameter arrives as its segments; the route sees the path it stands for.
  const params = Object.fromEntries(
    Object.entries(req.params as Record<string, string | string[]>).map(([k, v]) => [
      k,
      Array.isArray(v) ? v.join("/") : v,
    ]),
  );
  return {
    params: d.params ? validate(d.params, params, "path") : {},
    query: d.query ? validate(d.query, req.query, "query") : {},
    headers: d.headers
      ? validate(
          d.headers,
          Object.fromEntries(Object.keys(d.headers.shape).map((name) => [name, req.get(name)])),
          "header",
        )
      : {},
    // A route without a body schema ignores what was sent (the boundary already checked it is
    // JSON); a lines route's JSON Lines body is the handler's to read.
    body: d.body && !req.res?.locals.upload ? validate(d.body.schema, req.body ?? {}, "body") : undefined,
  };
}

export function route<
  S extends z.ZodType,
  P extends Fields = None,
  Q extends Fields = None,
  H extends Fields = None,
  B extends z.ZodType = z.ZodUndefined,
>(declaration: JsonDeclaration<P, Q, H, B, S>): Route {
  const d = declaration as unknown as JsonDeclaration<Fields, Fields, Fields, z.ZodType, z.ZodType>;
  return {
    declaration: d,
    serve: (deps) => async (req, res, next) => {
      const input = parseInput(d, req) as RouteInput<Fields, Fields, Fields, z.ZodType>;
      const body = await d.handler(input, { req, res, next, deps });
      res.status(d.reply.status).json(body);
    },
  };
}

export function rawRoute<
  P extends Fields = None,
  Q extends Fields = None,
  H extends Fields = None,
  B extends z.ZodType = z.ZodUndefined,
>(declaration: RawDeclaration<P, Q, H, B>): Route {
  const d = declaration as unknown as RawDeclaration<Fields, Fields, Fields, z.ZodType>;
  return {
    declaration: d as Route["declaration"],
    serve: (deps) => async (req, res, next) => {
      const input = parseInput(d, req) as RouteInput<Fields, Fields, Fields, z.ZodType>;
      await d.handler(input, { req, res, next, deps });
    },
  };
}

/**
 * Mounts routes on a router in their declared order, each behind `before` (the mount's own
 * middleware) and the guards it names.
 */
export function mountRoutes(
  router: Router,
  routes: Route[],
  deps: AppDeps,
  guards: Guards,
  before: RequestHandler[] = [],
): Router {
  for (const r of routes) {
    const { method, path, guards: named = [] } = r.declaration;
    const chosen = named.map((g) => guards[g]).filter((g): g is RequestHandler => g !== null);
    router[method](expressPath(path), ...before, ...chosen, r.serve(deps));
  }
  return router;
}

/**
 * State a route keeps per running app (a cache, a parsed key), made on first use from its deps:
 * routes are declared at module level, before any app exists.
 */
export function perApp<T>(make: (deps: AppDeps) => T): (deps: AppDeps) => T {
  const made = new WeakMap<AppDeps, T>();
  return (deps) => {
    if (!made.has(deps)) made.set(deps, make(deps));
    return made.get(deps) as T;
  };
}
