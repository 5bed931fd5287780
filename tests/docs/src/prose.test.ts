import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Prose that names code must name code that exists: every function, type, constant, variable or
// file in backticks in README.md, docs/*.md and the packages' READMEs is looked up in the
// repository. (A rename that forgets the docs fails here, not in a reader's hands.)
const root = fileURLToPath(new URL("../../../", import.meta.url));

const SKIPPED = new Set(["node_modules", "dist", ".git", "var", "generated", ".turbo"]);
function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, out);
    else if (/\.(ts|tsx|mjs|js|sh|sql|prisma|json|ya?ml)$/.test(entry.name) || entry.name === "run")
      out.push(path);
  }
  return out;
}
// (Not this package: its made-up names below must not count as code.)
const code = ["apps", "packages", "scripts", "prisma", "catalogue", "docker", ".ci"]
  .flatMap((dir) => files(dir))
  .map((file) => readFileSync(join(root, file), "utf8"))
  .join("\n");

const docs = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(root, "packages"))
    .map((p) => `packages/${p}/README.md`)
    .filter((f) => existsSync(join(root, f))),
];

type Name = { doc: string; kind: "identifier" | "constant" | "path"; text: string };

/** The names a document mentions in inline code (code blocks hold commands and examples). */
function namesIn(doc: string): Name[] {
  const text = readFileSync(join(root, doc), "utf8").replace(/```[\s\S]*?```/g, "");
  const names: Name[] = [];
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    const bare = span!.replace(/\(.*\)$/, "");
    if (/^(apps|packages|scripts|docs|prisma|catalogue|docker|tests)\/[\w./@-]*$/.test(span!))
      names.push({ doc, kind: "path", text: span! });
    else if (/^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(span!)) names.push({ doc, kind: "constant", text: span! });
    // A call (`name()`), or a camelCase or PascalCase name, possibly dotted (`OutputUrls.resolve`).
    else if (
      /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(bare) &&
      (span!.endsWith(")") || /[a-z][A-Z]/.test(bare))
    )
      names.push({ doc, kind: "identifier", text: bare });
  }
  return names;
}

const exists = ({ kind, text }: Name) => {
  if (kind === "path") return existsSync(join(root, text));
  // Each part of a dotted name must be there (`res.locals.mount`: locals and mount).
  return text
    .split(".")
    .filter((part) => !/^(req|res|job|process)$/.test(part))
    .every((part) => new RegExp(`(?<![\\w$])${part.replace(/\$/g, "\\$")}(?![\\w$])`).test(code));
};

describe("names in the documentation", () => {
  const all = docs.flatMap(namesIn);

  it("when the docs are read, then they name code (a check that finds nothing checks nothing)", () => {
    expect(all.filter((n) => n.kind === "identifier").length).toBeGreaterThan(40);
    expect(all.filter((n) => n.kind === "constant").length).toBeGreaterThan(100);
    expect(all.filter((n) => n.kind === "path").length).toBeGreaterThan(20);
  });

  it("when a function, type, constant, setting or file is named in backticks, then it exists", () => {
    expect(all.filter((n) => !exists(n)).map((n) => `${n.doc}: ${n.text}`)).toEqual([]);
  });

  it("when a name is made up, then the check catches it", () => {
    expect(exists({ doc: "x", kind: "identifier", text: "createRunsProducer" })).toBe(false);
    expect(exists({ doc: "x", kind: "constant", text: "OUTPUT_BUCKET_NAME" })).toBe(false);
    expect(exists({ doc: "x", kind: "path", text: "apps/api/src/nowhere.ts" })).toBe(false);
  });
});
