import type { Express, Request, Response } from "express";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { CONSOLE_SCOPED } from "../console/routes.js";
import { matchedRoute } from "../http/observeRequests.js";
import { buildOpenApiDocument } from "../openapi/document.js";
import { adapterOf } from "../routes/api.js";

type Doc = ReturnType<typeof buildOpenApiDocument>;

/** Express route pattern -> OpenAPI path key, with parameter names erased on both sides. */
export const normalisePath = (path: string) => path.replace(/:(\w+)|\*(\w+)|\{(\w+)\}/g, "{}");

/**
 * Checks every JSON response an app sends against the OpenAPI document: the operation is found by
 * the matched route, the schema by the status. Unmatched requests (404, or 401 before routing)
 * must carry the error body. Returns the list of violations, filled as requests are served.
 */
export function recordContractViolations(
  app: Express,
  doc: Doc = buildOpenApiDocument("http://localhost"),
): string[] {
  const violations: string[] = [];
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: "https://openapi.local/doc", components: doc.components });
  const compiled = new Map<string, ValidateFunction | null>();
  const operations = new Map<string, Record<string, { content?: Record<string, { schema?: object }> }>>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, { responses?: object }>)) {
      if (op?.responses)
        operations.set(`${method.toUpperCase()} ${normalisePath(path)}`, op.responses as never);
    }
  }
  const errorSchema = { $ref: "https://openapi.local/doc#/components/schemas/Error" };
  // Another API style's paths answer errors in its shape, routed or not.
  const errorSchemaOf = (url: string) => {
    const style = adapterOf(url)?.errorStyle;
    const id = style && (style.schema.meta()?.id as string | undefined);
    return id
      ? { key: `error ${id}`, schema: { $ref: `https://openapi.local/doc#/components/schemas/${id}` } }
      : { key: "error", schema: errorSchema };
  };

  const validatorFor = (key: string, schema: object | undefined) => {
    if (!compiled.has(key)) {
      compiled.set(
        key,
        schema
          ? ajv.compile(
              JSON.parse(
                JSON.stringify(schema).replaceAll(
                  '"#/components/',
                  '"https://openapi.local/doc#/components/',
                ),
              ),
            )
          : null,
      );
    }
    return compiled.get(key)!;
  };

  const check = (req: Request, res: Response, body: unknown) => {
    // The operators' queue dashboard (bull-board) is a UI of its own, not part of the public API.
    if (req.originalUrl.startsWith("/admin/")) return;
    // The console's calls to the API's operations (/console/api/:mode/…) answer as those operations.
    let route = matchedRoute(req, res)?.replace(CONSOLE_SCOPED, "/api/v1") ?? null;
    const where = `${req.method} ${req.originalUrl} -> ${res.statusCode}`;
    // HEAD is GET without the body (RFC 9110), answered by the GET route: documented with it.
    // Express leaves req.route set for a HEAD on a route without GET, which then falls to the 404.
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (route && !operations.has(`${method} ${normalisePath(route)}`) && req.method === "HEAD") route = null;
    // The console's pages are HTML, not operations; an error on one still has the error body.
    if (/^\/console(\/(?!api\/)|$)/.test(req.originalUrl)) route = null;
    if (!route) {
      if (res.statusCode < 400) return violations.push(`${where}: answered outside any documented route`);
      const { key, schema } = errorSchemaOf(req.originalUrl);
      const validate = validatorFor(key, schema)!;
      if (!validate(body)) violations.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      return;
    }
    const key = `${method} ${normalisePath(route)}`;
    const responses = operations.get(key);
    if (!responses) return violations.push(`${where}: route ${key} is not in the document`);
    const response = responses[String(res.statusCode)];
    if (!response) return violations.push(`${where}: status ${res.statusCode} is not documented for ${key}`);
    const validate = validatorFor(`${key} ${res.statusCode}`, response.content?.["application/json"]?.schema);
    if (validate && !validate(body)) violations.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  };

  const original = app.response.json;
  app.response.json = function json(this: Response, body: unknown) {
    check(this.req, this, body);
    return original.call(this, body);
  };
  return violations;
}
