// The admin CLI's commands: one module per group under commands/, each command declaring its
// usage and flags; this file assembles the help, parses the flags they declare and dispatches.
import { parseArgs } from "node:util";
import { hostname, userInfo } from "node:os";
import type { Db } from "@svc/db";
import { cliActor } from "@svc/use-cases";
import { UsageError, type Command, type CommandSettings, type Out } from "./command.js";
import { ACCOUNT_COMMANDS } from "./commands/accounts.js";
import { BATCH_COMMANDS } from "./commands/batches.js";
import { COG_COMMANDS } from "./commands/cog.js";
import { DEMO_COMMANDS } from "./commands/demo.js";
import { KEY_COMMANDS } from "./commands/keys.js";
import { IMPORT_COMMANDS } from "./commands/modelImport.js";
import { MODEL_COMMANDS } from "./commands/models.js";
import { USER_COMMANDS } from "./commands/users.js";
import { WEIGHTS_COMMANDS } from "./commands/weights.js";

export { UsageError, type CommandSettings } from "./command.js";
export { DEMO_ACCOUNT_NAME, DEMO_EMAIL, DEMO_OPERATOR_EMAIL } from "./commands/demo.js";

const COMMANDS: Record<string, Command> = {
  ...ACCOUNT_COMMANDS,
  ...KEY_COMMANDS,
  ...USER_COMMANDS,
  ...DEMO_COMMANDS,
  ...MODEL_COMMANDS,
  ...IMPORT_COMMANDS,
  ...COG_COMMANDS,
  ...WEIGHTS_COMMANDS,
  ...BATCH_COMMANDS,
};

export const USAGE = `usage: svc <command> [options]

  Every command that changes an account, a key, a person or a model writes an audit entry (the
  console's Audit log; the account's owners see theirs in their Security log), with the reason
  given by --reason <text> (default: the command's name) and the actor cli:<user>@<host>.
  --json prints each result as a line of JSON.

${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join("\n")}
`;

type Options = NonNullable<Parameters<typeof parseArgs>[0]>["options"];

/** Every flag a command declares (a flag means the same in every command that takes it). */
const OPTIONS: Options = {
  json: { type: "boolean", default: false },
  reason: { type: "string" },
  ...Object.fromEntries(
    Object.values(COMMANDS).flatMap((c) => [
      ...(c.flags ?? []).map((flag) => [flag, { type: "string" }] as const),
      ...(c.switches ?? []).map((flag) => [flag, { type: "boolean", default: false }] as const),
    ]),
  ),
};

function parseOptions(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs one admin command against the database; prints with out(). */
export async function runCommand(db: Db, argv: string[], out: Out, settings: CommandSettings): Promise<void> {
  const parsed = parseOptions(argv);
  const { positionals } = parsed;
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const [group, action, ...args] = positionals;
  const name = `${group ?? ""} ${action ?? ""}`.trim();
  const command = COMMANDS[name] ?? (group && COMMANDS[group]);
  if (!command)
    throw new UsageError(group ? `unknown command: ${positionals.join(" ")}` : "no command given");
  const strings = Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
  await command.run({
    db,
    settings,
    values: strings,
    switched: (flag) => values[flag] === true,
    args: COMMANDS[name] ? args : [action, ...args].filter((a): a is string => a !== undefined),
    // Never the command line itself as the default reason: it may carry a password.
    by: {
      actor: cliActor(userInfo().username, hostname()),
      reason: (typeof values.reason === "string" && values.reason.trim()) || `svc ${name}`,
    },
    print: (human, data) => out(values.json ? JSON.stringify(data) : human),
  });
}
