import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import express, { Router } from "express";

/** apps/web/dist of this checkout, seen from apps/api/dist/console/ (a path, not an import). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL("../../../web/dist/", import.meta.url));

// The console's own origin only; output media come from /files on the same origin, or, with
// signed URLs, from the bucket's origin; inline styles are the charts' and React's style attributes.
const csp = (mediaOrigin: string | undefined) =>
  [
    "default-src 'self'",
    `img-src 'self' data: blob:${mediaOrigin ? ` ${mediaOrigin}` : ""}`,
    `media-src 'self' blob:${mediaOrigin ? ` ${mediaOrigin}` : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "script-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join("; ");

/**
 * The built single-page console: hashed assets cached for a year, every other path under
 * /console answered with index.html (the client-side router takes it from there), never cached.
 */
export function consolePages(dir: string, mediaOrigin?: string): Router {
  const router = Router();
  const CSP = csp(mediaOrigin);
  const index = join(dir, "index.html");
  router.use((_req, res, next) => {
    res.set({
      "Content-Security-Policy": CSP,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "same-origin",
      "X-Frame-Options": "DENY",
    });
    next();
  });
  router.use(
    "/assets",
    express.static(join(dir, "assets"), {
      index: false,
      immutable: true,
      maxAge: "365d",
      fallthrough: false,
    }),
  );
  router.get("/{*page}", (_req, res) => {
    if (!existsSync(index)) {
      res
        .status(503)
        .type("text/plain")
        .send("The console is not built: run `pnpm build` (it builds apps/web), then reload.");
      return;
    }
    res.set("Cache-Control", "no-cache").sendFile(index);
  });
  return router;
}
