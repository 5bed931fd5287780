// models import --<kind> <base-url> ...: the flags, their help and their checks come from each
// kind's declared import options (use-cases' importers), as the console's import forms do.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { repoPaths } from "@svc/db";
import { importBody, IMPORTERS, importModel, ImportRefused, type Importer } from "@svc/use-cases";
import { UsageError, type Command, type CommandContext } from "../command.js";
import { saveToCatalogueFile } from "./catalogueFile.js";

/** The flag of an option: the server's is the kind's (--cog); a price is --price; else kebab-case. */
function flagOf(importer: Importer, field: string): string {
  if (field === serverField(importer)) return importer.kind;
  if (field === "tokens_per_unit") return "price";
  const flag = field.replaceAll("_", "-");
  return importer.secrets?.includes(field) ? `${flag}-env` : flag;
}

const serverField = (importer: Importer) => Object.keys(importer.options.shape)[0]!;

interface FieldSchema {
  type?: string;
  enum?: string[];
}

/** The body's JSON Schema: each option's type, whether it is required, its values. */
function fieldsOf(importer: Importer) {
  const schema = z.toJSONSchema(importBody(importer), { io: "input" }) as {
    properties: Record<string, FieldSchema>;
    required?: string[];
  };
  return Object.entries(schema.properties).map(([field, prop]) => ({
    field,
    prop,
    flag: flagOf(importer, field),
    required: schema.required?.includes(field) ?? false,
  }));
}

/** `--flag <what>` as the help shows it. */
function usageOf(importer: Importer, f: ReturnType<typeof fieldsOf>[number]): string {
  if (f.prop.type === "boolean") return `[--${f.flag}]`;
  const what = f.prop.enum
    ? f.prop.enum.join("|")
    : f.field === serverField(importer)
      ? "<base-url>"
      : importer.jsonFiles?.includes(f.field)
        ? "<file.json>"
        : importer.secrets?.includes(f.field)
          ? "<VAR>"
          : `<${f.field.replaceAll("_", " ")}>`;
  return f.required ? `--${f.flag} ${what}` : `[--${f.flag} ${what}]`;
}

/** Words in lines of at most `width` characters, each line after `indent` spaces. */
function wrap(words: string[], width: number, indent: number): string[] {
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + word.length + 1 <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.map((line) => " ".repeat(indent) + line);
}

function usage(importer: Importer): string {
  const fields = fieldsOf(importer);
  const flags = [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)].map((f) =>
    usageOf(importer, f),
  );
  const [first, ...rest] = wrap(["models import", ...flags, "[--save]"], 98, 0);
  const summary = `${importer.summary}; --save also writes catalogue/models.json`;
  return [first!, ...rest.map((l) => `        ${l}`), ...wrap(summary.split(" "), 50, 50)].join("\n");
}

/** One option's value from its flag: a file's JSON, a variable's value, a number, or the text. */
async function valueOf(
  ctx: CommandContext,
  importer: Importer,
  f: ReturnType<typeof fieldsOf>[number],
): Promise<unknown> {
  if (f.prop.type === "boolean") return ctx.switched(f.flag) || undefined;
  const given = ctx.values[f.flag];
  if (given === undefined) return undefined;
  if (importer.jsonFiles?.includes(f.field)) {
    try {
      return JSON.parse(await readFile(given, "utf8"));
    } catch (error) {
      throw new UsageError(`--${f.flag}: ${(error as Error).message}`);
    }
  }
  if (importer.secrets?.includes(f.field)) {
    if (!process.env[given]) throw new UsageError(`--${f.flag}: ${given} is not set`);
    return process.env[given];
  }
  return (f.prop.type === "integer" || f.prop.type === "number") && /^-?\d+(\.\d+)?$/.test(given)
    ? Number(given)
    : given;
}

async function runImport(ctx: CommandContext): Promise<void> {
  const importer = IMPORTERS.find((i) => ctx.values[i.kind] !== undefined);
  if (!importer)
    throw new UsageError(`${IMPORTERS.map((i) => `--${i.kind}`).join(", ")} <base-url> is required`);
  const fields = fieldsOf(importer);
  const given = Object.fromEntries(
    await Promise.all(fields.map(async (f) => [f.field, await valueOf(ctx, importer, f)] as const)),
  );
  const parsed = importBody(importer).safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fields.find((f) => f.field === issue.path[0]);
    throw new UsageError(`${field ? `--${field.flag}: ` : ""}${issue.message}`);
  }
  const entry = await importModel(importer, parsed.data as never, {
    db: ctx.db,
    by: ctx.by,
    ...(ctx.settings.secretsKey && { secretsKey: ctx.settings.secretsKey }),
  }).catch((error: unknown) => {
    throw error instanceof ImportRefused ? new UsageError(error.message) : error;
  });
  const save = ctx.switched("save");
  if (save) await saveToCatalogueFile(entry, repoPaths.catalogue);
  // A sealed secret is not printed either.
  const runner = Object.fromEntries(Object.entries(entry.runner).filter(([k]) => !k.endsWith("_enc")));
  ctx.print(`imported ${entry.id}${save ? " (and saved to the catalogue file)" : ""}`, { ...entry, runner });
}

const allFields = IMPORTERS.flatMap(fieldsOf);

export const IMPORT_COMMANDS: Record<string, Command> = {
  "models import": {
    usage: IMPORTERS.map(usage).join("\n  "),
    flags: [...new Set(allFields.filter((f) => f.prop.type !== "boolean").map((f) => f.flag))],
    switches: [...new Set(allFields.filter((f) => f.prop.type === "boolean").map((f) => f.flag)), "save"],
    run: runImport,
  },
};
