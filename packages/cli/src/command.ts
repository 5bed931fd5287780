// What every command of the admin CLI shares: its context (the database, the flags, the audit's
// actor and reason, printing), its declaration (usage line and flags), and the parsers of values.
import type { BaseConfig } from "@svc/config";
import { MAX_TOKENS, type Mode } from "@svc/core";
import { findAccount, type Db } from "@svc/db";
import type { ActedBy } from "@svc/use-cases";

export class UsageError extends Error {}

export type Out = (line: string) => void;

/** What the commands read from the configuration (secretsKey: SECRETS_KEY, when set, to seal keys). */
export type CommandSettings = Pick<BaseConfig, "API_KEYS_PER_MODE_MAX"> & { secretsKey?: Buffer };

export interface CommandContext {
  db: Db;
  settings: CommandSettings;
  /** The string flags given (--name value). */
  values: Readonly<Record<string, string | undefined>>;
  /** Whether a boolean flag was given (--replace). */
  switched(flag: string): boolean;
  /** The words after the command's two (`keys revoke <key_…>`: the key id). */
  args: readonly string[];
  /** The audit entry's actor and reason (--reason). */
  by: ActedBy;
  /** A human line, or the data as JSON with --json. */
  print(human: string, data: unknown): void;
}

export interface Command {
  /** Its lines in the help, the command's words first. */
  usage: string;
  /** Flags that take a value. */
  flags?: readonly string[];
  /** Flags that are on or off. */
  switches?: readonly string[];
  run(ctx: CommandContext): Promise<void>;
}

/** An amount of tokens: what a balance can hold at most (MAX_TOKENS). */
export const tokenAmount = (value: string | undefined, name: string) => positiveInt(value, name, MAX_TOKENS);

export function positiveInt(value: string | undefined, name: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!value || !/^\d+$/.test(value) || n <= 0 || !Number.isSafeInteger(n))
    throw new UsageError(`--${name} must be a positive integer`);
  if (n > max) throw new UsageError(`--${name} must be at most ${max}`);
  return n;
}

export function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

export function mode(value: string | undefined): Mode {
  if (value !== "live" && value !== "test") throw new UsageError("--mode must be live or test");
  return value;
}

export async function ensureAccount(db: Db, id: string) {
  if (!(await findAccount(db, id))) throw new UsageError(`no account ${id}`);
}
