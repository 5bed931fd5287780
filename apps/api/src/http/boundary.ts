import type { RequestHandler } from "express";
import { ApiError, type ErrorDetail } from "@svc/core";

/**
 * Text the service refuses at its edge, whatever the route: it cannot be stored (Postgres rejects
 * NUL in text and jsonb, and unpaired UTF-16 surrogates in jsonb) and has no meaning in an id,
 * a filter or a model input. Checked once here so that no route or repository meets it.
 */
export function unstorableText(text: string): string | null {
  if (text.includes("\0")) return "must not contain a NUL character";
  if (!text.isWellFormed()) return "must not contain an unpaired UTF-16 surrogate";
  return null;
}

/** Deeper than this, a JSON body is refused: model inputs and our own bodies are a few levels deep. */
export const MAX_JSON_DEPTH = 32;

const invalid = (where: string, details: ErrorDetail[]) =>
  new ApiError("VALIDATION_ERROR", `Invalid request ${where}.`, details);

/**
 * The request target's path segments must decode (percent-encoding of UTF-8) and, like every
 * query value, hold storable text. Routes then see only values they can pass to a query.
 */
export const checkRequestTarget: RequestHandler = (req, _res, next) => {
  const details: ErrorDetail[] = [];
  for (const segment of req.path.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      details.push({ path: "path", message: "malformed percent-encoding" });
      break;
    }
    const problem = unstorableText(decoded);
    if (problem) details.push({ path: "path", message: problem });
  }
  if (details.length) throw invalid("path", details);
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    for (const text of [name, ...(Array.isArray(value) ? value : [value])]) {
      const problem = typeof text === "string" ? unstorableText(text) : null;
      if (problem) details.push({ path: unstorableText(name) ? "query" : name, message: problem });
    }
  }
  if (details.length) throw invalid("query", details);
  next();
};

/**
 * A parsed JSON body: nesting bounded (recursive code further on - schema validation, canonical
 * hashing - must not run out of stack) and every key and string storable. Walked with an explicit
 * stack, so the check itself cannot overflow; details name the first problems found.
 */
export const checkJsonBody: RequestHandler = (req, _res, next) => {
  const details: ErrorDetail[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value: req.body, path: "", depth: 0 },
  ];
  while (stack.length && details.length < 10) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      const problem = unstorableText(value);
      if (problem) details.push({ path: path || "body", message: problem });
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      details.push({ path: path || "body", message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
      break;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      const problem = unstorableText(key);
      if (problem) details.push({ path: path || "body", message: `a key ${problem}` });
      else stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  if (details.length) throw invalid("body", details);
  next();
};
