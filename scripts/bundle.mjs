// An app's process as one file, dist/main.js, built by esbuild from tsc's output (dist/entry.js).
// Run from the app's directory: node ../../scripts/bundle.mjs
//
// Why: Node 20 loads a process's ~1,100 modules (our packages and their dependencies) one by one,
// each resolved, read and compiled on its own: 0.9-1.2 s of CPU for the worker. Bundled, the same
// code starts in about half of that, and the worker holds ~17 MB less at rest (docs/benchmarks.md,
// "The paying path" and "Memory").
// (Node 22's module compile cache would be the other way; the stack is on Node 20.)
//
// Every file keeps its own location: `import.meta.url`, `__dirname` and `__filename` in a bundled
// file say where that file is in the repository, so what code finds beside itself (the
// scheduler's Lua scripts, the render threads' script, a package's own files) is found where it
// was. Native addons stay files, loaded from where pnpm put them. The bundle runs from this
// checkout (or an image of it), next to node_modules, like the files it was made from; dist/entry.js
// still runs unbundled (stack traces then name the source files).
import { build } from "esbuild";
import { readdir, readFile, rm } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { dirname, relative, resolve } from "node:path";

const outdir = resolve("dist");
/** A file's path from the bundle's directory, resolved against the bundle's own URL at run time. */
const fromBundle = (file) => {
  const path = relative(outdir, file).split("\\").join("/");
  return path.startsWith(".") ? path : `./${path}`;
};

// What rewritten files call; `import.meta.url` here is the bundle's (or a chunk's: the same directory).
const banner = `import { createRequire as __svcCreateRequire } from "node:module";
import { fileURLToPath as __svcFileURLToPath } from "node:url";
import { dirname as __svcDirname } from "node:path";
const require = __svcCreateRequire(import.meta.url);
const __svcUrl = (path) => new URL(path, import.meta.url).href;
const __svcFile = (path) => __svcFileURLToPath(__svcUrl(path));`;

const declares = (source, name) => new RegExp(`\\b(?:var|let|const|function)\\s+${name}\\b`).test(source);

/** Gives each bundled file its own import.meta.url, __dirname and __filename. */
const keepLocations = {
  name: "keep-locations",
  setup(b) {
    b.onLoad({ filter: /\.[cm]?js$/ }, async ({ path }) => {
      let source = await readFile(path, "utf8");
      const usesUrl = source.includes("import.meta.url");
      const usesDir = source.includes("__dirname") && !declares(source, "__dirname");
      const usesFile = source.includes("__filename") && !declares(source, "__filename");
      if (!usesUrl && !usesDir && !usesFile) return undefined;
      const at = JSON.stringify(fromBundle(path));
      if (usesUrl) source = source.replaceAll("import.meta.url", `__svcUrl(${at})`);
      const head = [
        usesFile && `var __filename = __svcFile(${at});`,
        usesDir && `var __dirname = __svcDirname(__svcFile(${at}));`,
      ].filter(Boolean);
      // On the first line, after a #! line or a "use strict" (which must stay first), so that the
      // file's lines keep their numbers.
      const [, first = "", rest] = /^(#![^\n]*\n|\s*(?:"use strict"|'use strict');?)?([\s\S]*)$/.exec(source);
      const separator = first.trim() && !/[;\n]$/.test(first) ? ";" : "";
      return {
        contents: `${first}${separator}${head.join(" ")}${rest}`,
        loader: "js",
        resolveDir: dirname(path),
      };
    });
    // Native addons and the packages holding a platform's build of one, and the packages a
    // process imports only when it needs them (Prisma's query compiler, bull-board, zxcvbn's lists):
    // loaded by Node at run time from where they are, as without the bundle (a package not
    // installed, another platform's, is never loaded here).
    const external = async (args) => {
      if (args.pluginData?.outside) return undefined;
      const found = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: { outside: true },
      });
      if (found.errors.length) return { path: args.path, external: true };
      // Our own packages stay in the bundle: loaded twice, their state and classes would be two.
      if (!found.path.includes("/node_modules/")) return undefined;
      return { path: fromBundle(found.path), external: true };
    };
    b.onResolve({ filter: /\.node$|^@node-rs\/argon2-|^@msgpackr-extract\/|^pg-native$/ }, external);
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === "dynamic-import" && !isBuiltin(args.path) ? external(args) : undefined,
    );
  },
};

// Chunks of an earlier build (their names change with their contents).
for (const name of await readdir(outdir)) if (/^chunk-\w+\.js$/.test(name)) await rm(resolve(outdir, name));

await build({
  entryPoints: { main: resolve("dist/entry.js") },
  outdir,
  // Our own modules imported only when needed (the S3 store and its client) go in chunks beside
  // main.js (the same directory: the same paths), parsed only if they are loaded.
  splitting: true,
  chunkNames: "chunk-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  banner: { js: banner },
  plugins: [keepLocations],
  logLevel: "warning",
  // Requires a dependency makes only on another runtime or version.
  logOverride: { "require-resolve-not-external": "silent", "unsupported-require-call": "silent" },
});
