import { z } from "zod";
import { apiEnvSchema, baseEnvSchema, workerEnvSchema, type VariableDoc } from "./schemas.js";

// What .env.example and docs/configuration.md say, generated from the schemas: each variable's
// meaning lives on its schema (`doc()` in schemas.ts) and nowhere else.

const REQUIRED_SAMPLE = {
  DATABASE_URL: "postgresql://x@localhost/x",
  SECRETS_KEY: Buffer.alloc(32).toString("base64"),
};

const SCHEMAS = { api: apiEnvSchema, worker: workerEnvSchema, cli: baseEnvSchema } as const;
type App = keyof typeof SCHEMAS;

export interface EnvVariable extends VariableDoc {
  name: string;
  /** Its default for each process that reads it; undefined: none (required or optional). */
  defaults: Partial<Record<App, string>>;
  required: boolean;
  usedBy: App[];
}

/** Every variable of the schemas, in the order they are declared, with what documents it. */
export function schemaVariables(): EnvVariable[] {
  const vars = new Map<string, EnvVariable>();
  for (const [app, schema] of Object.entries(SCHEMAS) as [App, (typeof SCHEMAS)[App]][]) {
    const parsed = schema.parse(REQUIRED_SAMPLE) as Record<string, unknown>;
    for (const [name, field] of Object.entries(schema.shape) as [string, z.ZodType][]) {
      const meta = z.globalRegistry.get(field) as VariableDoc | undefined;
      if (!meta?.description) throw new Error(`${name} has no description in packages/config/src/schemas.ts`);
      const entry = vars.get(name) ?? {
        name,
        ...meta,
        defaults: {},
        required: name in REQUIRED_SAMPLE,
        usedBy: [],
      };
      entry.usedBy.push(app);
      if (!entry.required && parsed[name] !== undefined) entry.defaults[app] = String(parsed[name]);
      vars.set(name, entry);
    }
  }
  return [...vars.values()];
}

/** One default for all, or each process's ("10000 (api) / 30000 (worker)"), or none. */
function defaultText(v: EnvVariable): string {
  const values = [...new Set(Object.values(v.defaults))];
  if (v.required) return "(required)";
  if (!values.length) return "(unset)";
  if (values.length === 1) return values[0] === "" ? '""' : values[0]!;
  return Object.entries(v.defaults)
    .map(([app, value]) => `${value} (${app})`)
    .join(" / ");
}

/** docs/configuration.md. */
export function configurationMarkdown(): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = schemaVariables().map(
    (v) => `| \`${v.name}\` | ${cell(defaultText(v))} | ${v.usedBy.join(", ")} | ${cell(v.description)} |`,
  );
  return [
    "# Configuration",
    "",
    "Generated from the environment schemas (`packages/config/src/schemas.ts`, where each variable's",
    "description lives) by `pnpm docs:config`, like `.env.example`; a test fails when either file",
    "differs from what the schemas generate. Every process validates its variables once at start-up",
    "and exits with code 78 naming each bad or missing one. Empty values count as unset.",
    "",
    "| variable | default | read by | meaning |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

/** Words of `text` as `# ` comment lines of at most `width` characters. */
function comment(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > width && line !== "#") {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/**
 * .env.example: every variable under its description, grouped by the processes that read it. A
 * variable with one default is set to it; one without a default, or whose default differs between
 * processes, is commented out (setting it would change every process).
 */
export function envExample(): string {
  const groups: [string, (v: EnvVariable) => boolean][] = [
    ["shared by the API, the worker and the admin CLI", (v) => v.usedBy.length === 3],
    ["shared by the API and the worker", (v) => v.usedBy.length === 2],
    ["API", (v) => v.usedBy.length === 1 && v.usedBy[0] === "api"],
    ["worker", (v) => v.usedBy.length === 1 && v.usedBy[0] === "worker"],
  ];
  const vars = schemaVariables();
  const out = [
    ...comment(
      "Model Run Service configuration, generated from packages/config/src/schemas.ts by `pnpm docs:config` (edit the descriptions there). Copy to .env (scripts/start.sh reads it) or set in the environment. Every variable is validated at start-up; a bad one stops the process with its name. docs/configuration.md has the same in a table.",
    ),
  ];
  for (const [title, belongs] of groups) {
    out.push("", `# --- ${title} ${"-".repeat(Math.max(3, 92 - title.length))}`);
    for (const v of vars.filter(belongs)) {
      const values = [...new Set(Object.values(v.defaults))];
      out.push("", ...comment(v.description));
      if (v.required) out.push(`${v.name}=${v.example ?? ""}`);
      else if (values.length === 1) out.push(`${v.name}=${values[0]}`);
      else {
        const each = values.length ? `Defaults: ${defaultText(v)}.` : "";
        if (each) out.push(...comment(each));
        out.push(`# ${v.name}=${v.example ?? ""}`);
      }
    }
  }
  return `${out.join("\n")}\n`;
}
