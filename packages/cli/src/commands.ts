import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { hostname, userInfo } from "node:os";
import { readFile } from "node:fs/promises";
import type { BaseConfig } from "@svc/config";
import {
  BUDGET_PERIODS,
  MAX_TOKENS,
  MODEL_PRICE_MAX,
  presentBudget,
  USER_ROLES,
  type BudgetPeriod,
  type Mode,
  type ModelCategory,
  type OpenAIServerApi,
  cogUploadUrl,
  type UserRole,
} from "@svc/core";
import {
  createAccount,
  createApiKey,
  findAccount,
  findAccountByName,
  findPublicUserByEmail,
  grantTokens,
  listAccounts,
  listAllModels,
  listApiKeys,
  listUsers,
  repoPaths,
  revokeKeysNamed,
  setUserPassword,
  type Db,
  type KeyLimits,
} from "@svc/db";
import {
  addPerson,
  addUser,
  adjustTokens,
  changeModel,
  cliActor,
  hashPassword,
  importCogModel,
  importOpenAIModel,
  importComfyModel,
  issueKey,
  openAccount,
  revokeKey,
  setAccountScheduling,
  updatePerson,
  type ActedBy,
} from "@svc/use-cases";
import { saveToCatalogueFile } from "./models.js";

export const USAGE = `usage: svc <command> [options]

  Every command that changes an account, a key, a person or a model writes an audit entry (the
  console's Audit log; the account's owners see theirs in their Security log), with the reason
  given by --reason <text> (default: the command's name) and the actor cli:<user>@<host>.

  accounts create --name <name> [--tokens <n>]   create an account (optionally with tokens)
  accounts list                                   list accounts with balance, reserved tokens and scheduling
  accounts set-limits <acct_…> [--weight <n>] [--max-concurrent-runs <n>|default]
                                                  the account's share of busy models (weight, 1 by default)
                                                  and its runs executing at once (default:
                                                  ACCOUNT_MAX_CONCURRENT_RUNS); its waiting runs follow within
                                                  a sweep (SWEEP_INTERVAL_MS), new ones within seconds
  tokens grant --account <acct_…> --amount <n>    add tokens to an account (ledger GRANT); a balance
                                                  holds at most 2147483647 tokens
  keys create --account <acct_…> --mode live|test [--name <label>] [--expires-at <ISO time>]
              [--models <model id>,…] [--budget <tokens>/day|month|total] [--max-concurrent-runs <n>]
                                                  create an API key; the full key is printed once. It
                                                  answers 401 after --expires-at, runs only --models,
                                                  402 past its --budget, and runs at most
                                                  --max-concurrent-runs at once on limited models
  keys list [--account <acct_…>]                  list keys (prefix only, never the key)
  keys revoke <key_…>                             revoke a key; it stops working at once
  users create --account <acct_…> --email <email> --password <password> [--role owner|member|operator]
                                                  a person who signs in to the web console (default role: owner
                                                  for the account's first person, member after); an
                                                  operator also manages every account, the catalogue
                                                  and reads the audit log in the console
  users list [--account <acct_…>]                 list console users (never their password hashes)
  users disable <email>                           disable a user and end their sessions
  demo [--tokens <n>]                             ensure the demo account and its console user (new password
                                                  each time) and print a new live and test key (the
                                                  previous demo keys are revoked)
  models list                                     every model with status, runner and price
  models set-status <model id> <status>           e.g. active, deprecated (only active models run)
  models set-queue-cap <model id> <n>|none        runs that may wait for the model at once (past it: 429)
  models set-servers <model id> <url>… [--concurrency <n>]
                                                  the Cog servers of a model (never link-local or cloud
                                                  metadata addresses) and the predictions each takes at
                                                  once; workers follow at the pool monitor's next pass
  models import --cog <base-url> --id <vendor/model> [--category image|video|audio] [--price <tokens>]
         [--unit <unit>] [--units-from <input field>] [--name <name>] [--description <text>]
         [--like <model id> --input-map <file.json>] [--status <status>] [--replace] [--save]
                                                  add a model served by a Cog server: input schema from
                                                  its /openapi.json (or --like's, mapped by --input-map);
                                                  an existing id is refused unless --replace;
                                                  --save also writes catalogue/models.json
  models import --openai <base-url> --model <its name there> --api images|videos|speech --id <vendor/model>
         [--api-key-env <VAR>] [--price <tokens>] [--name <name>] [--description <text>] [--replace] [--save]
                                                  add a model served by OpenAI-style media servers
                                                  (vLLM-Omni, SGLang, LocalAI): its API's public input;
                                                  the key is read from the variable VAR and stored
                                                  sealed with SECRETS_KEY (never printed)
  cog upload-url                                  the --upload-url to start Cog servers with, so that
                                                  their output files are PUT to the workers (needs
                                                  COG_CALLBACK_URL and SECRETS_KEY as the workers have)
  models import --comfyui <base-url> --workflow <api-format.json> --bindings <bindings.json> --id <vendor/model>
         [--category image|video|audio] [--price <tokens>] [--name <name>] [--replace] [--save]
                                                  add a ComfyUI workflow as a model: its input fields
                                                  are its bindings ([{field, node, input, file?}])
`;

export class UsageError extends Error {}

type Out = (line: string) => void;

/** An amount of tokens: what a balance can hold at most (MAX_TOKENS). */
const tokenAmount = (value: string | undefined, name: string) => positiveInt(value, name, MAX_TOKENS);

function positiveInt(value: string | undefined, name: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!value || !/^\d+$/.test(value) || n <= 0 || !Number.isSafeInteger(n))
    throw new UsageError(`--${name} must be a positive integer`);
  if (n > max) throw new UsageError(`--${name} must be at most ${max}`);
  return n;
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function mode(value: string | undefined): Mode {
  if (value !== "live" && value !== "test") throw new UsageError("--mode must be live or test");
  return value;
}

async function ensureAccount(db: Db, id: string) {
  if (!(await findAccount(db, id))) throw new UsageError(`no account ${id}`);
}

export const DEMO_ACCOUNT_NAME = "demo";
export const DEMO_EMAIL = "demo@example.com";
/** The demo's operator: the operator console (every account, the catalogue, the audit log). */
export const DEMO_OPERATOR_EMAIL = "operator@example.com";
const DEMO_KEY_NAMES = { live: "demo live", test: "demo test" } as const;

/** The role asked for; none: the use-case's default (the account's first person is its owner). */
/**
 * --expires-at (a future ISO time), --models (known model ids, comma-separated), --budget
 * (<tokens>/<period>) and --max-concurrent-runs as a key's limits.
 */
async function keyLimits(
  db: Db,
  values: { "expires-at"?: string; models?: string; budget?: string; "max-concurrent-runs"?: string },
): Promise<KeyLimits> {
  const limits: KeyLimits = {};
  if (values.budget !== undefined) {
    const [tokens, period] = values.budget.split("/");
    if (!period || !(BUDGET_PERIODS as readonly string[]).includes(period))
      throw new UsageError(`--budget: expected <tokens>/${BUDGET_PERIODS.join("|")}, such as 500/day`);
    limits.budget = { tokens: positiveInt(tokens!, "budget"), period: period as BudgetPeriod };
  }
  if (values["max-concurrent-runs"] !== undefined)
    limits.maxConcurrentRuns = positiveInt(values["max-concurrent-runs"], "max-concurrent-runs");
  if (values["expires-at"] !== undefined) {
    const at = new Date(values["expires-at"]);
    if (Number.isNaN(at.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(values["expires-at"]))
      throw new UsageError("--expires-at: expected an ISO 8601 time such as 2026-12-31T23:59:59Z");
    if (at <= new Date()) throw new UsageError("--expires-at: expected a time in the future");
    limits.expiresAt = at;
  }
  if (values.models !== undefined) {
    const ids = [
      ...new Set(
        values.models
          .split(",")
          .map((m) => m.trim())
          .filter(Boolean),
      ),
    ];
    const known = new Set((await listAllModels(db)).map((m) => m.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (!ids.length || unknown.length)
      throw new UsageError(
        `--models: ${unknown.length ? `no model ${unknown.join(", ")}` : "expected model ids"}`,
      );
    limits.allowedModels = ids;
  }
  return limits;
}

/** --input-map: a JSON file of { rename, expand }. */
async function inputMapFile(path: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (path === undefined) return undefined;
  try {
    return JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new UsageError(`--input-map: ${(error as Error).message}`);
  }
}

function role(value: string | undefined): UserRole | undefined {
  if (value === undefined) return undefined;
  if (!(USER_ROLES as readonly string[]).includes(value))
    throw new UsageError(`--role must be one of ${USER_ROLES.join(", ")}`);
  return value as UserRole;
}

function parseOptions(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: "string" },
        tokens: { type: "string" },
        account: { type: "string" },
        amount: { type: "string" },
        mode: { type: "string" },
        json: { type: "boolean", default: false },
        cog: { type: "string" },
        openai: { type: "string" },
        comfyui: { type: "string" },
        workflow: { type: "string" },
        bindings: { type: "string" },
        model: { type: "string" },
        api: { type: "string" },
        "api-key-env": { type: "string" },
        id: { type: "string" },
        description: { type: "string" },
        category: { type: "string" },
        price: { type: "string" },
        unit: { type: "string" },
        "units-from": { type: "string" },
        like: { type: "string" },
        "input-map": { type: "string" },
        status: { type: "string" },
        email: { type: "string" },
        password: { type: "string" },
        role: { type: "string" },
        "expires-at": { type: "string" },
        models: { type: "string" },
        budget: { type: "string" },
        save: { type: "boolean", default: false },
        replace: { type: "boolean", default: false },
        concurrency: { type: "string" },
        reason: { type: "string" },
        weight: { type: "string" },
        "max-concurrent-runs": { type: "string" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** What the commands read from the configuration (secretsKey: SECRETS_KEY, when set, to seal keys). */
export type CommandSettings = Pick<BaseConfig, "API_KEYS_PER_MODE_MAX"> & { secretsKey?: Buffer };

/** Runs one admin command against the database; prints with out(). */
export async function runCommand(db: Db, argv: string[], out: Out, settings: CommandSettings): Promise<void> {
  /** A key just made, or the cap's refusal in the CLI's words. */
  const atCap = <T>(made: T | null, accountId: string, keyMode: Mode): T => {
    if (!made)
      throw new UsageError(
        `account ${accountId} already has ${settings.API_KEYS_PER_MODE_MAX} active ${keyMode} keys (API_KEYS_PER_MODE_MAX); revoke one first`,
      );
    return made;
  };
  const newKey = async (accountId: string, keyMode: Mode, name: string) =>
    atCap(
      await createApiKey(db, accountId, keyMode, name, settings.API_KEYS_PER_MODE_MAX),
      accountId,
      keyMode,
    );
  /** A model change's refusal in the CLI's words. */
  const changedModel = async (result: Awaited<ReturnType<typeof changeModel>>, id: string) => {
    if (result.kind === "not_found") throw new UsageError(`no model ${id}`);
    if (result.kind === "invalid") throw new UsageError(result.message);
  };
  const { positionals, values } = parseOptions(argv);
  const [group, action, arg] = positionals;
  const print = (human: string, data: unknown) => out(values.json ? JSON.stringify(data) : human);
  // Never the command line itself as the default reason: it may carry a password.
  const by: ActedBy = {
    actor: cliActor(userInfo().username, hostname()),
    reason: values.reason?.trim() || `svc ${group} ${action ?? ""}`.trim(),
  };

  switch (`${group} ${action ?? ""}`.trim()) {
    case "accounts create": {
      const name = required(values.name, "name");
      const tokens = values.tokens === undefined ? 0 : tokenAmount(values.tokens, "tokens");
      const account = await openAccount(db, by, name, tokens);
      print(`created account ${account.id}`, { id: account.id });
      return;
    }
    case "accounts list": {
      for (const a of await listAccounts(db))
        print(
          `${a.id}  ${a.name}  balance=${a.balance} reserved=${a.reserved} weight=${a.weight} max_concurrent_runs=${a.maxConcurrentRuns ?? "default"}`,
          a,
        );
      return;
    }
    case "tokens grant": {
      const accountId = required(values.account, "account");
      const amount = tokenAmount(values.amount, "amount");
      const result = await adjustTokens(db, by, accountId, amount);
      if (result.kind === "not_found") throw new UsageError(`no account ${accountId}`);
      if (result.kind === "too_large")
        throw new UsageError(
          `the balance (${result.balance}) would pass ${MAX_TOKENS} tokens, the most an account can hold`,
        );
      if (result.kind !== "adjusted") throw new UsageError(`not granted: ${result.kind}`);
      print(`granted; balance=${result.account.balance} reserved=${result.account.reserved}`, {
        balance: result.account.balance,
        reserved: result.account.reserved,
      });
      return;
    }
    case "keys create": {
      const accountId = required(values.account, "account");
      const keyMode = mode(values.mode);
      await ensureAccount(db, accountId);
      const { record, key } = atCap(
        await issueKey(db, by, {
          accountId,
          mode: keyMode,
          name: values.name ?? "",
          max: settings.API_KEYS_PER_MODE_MAX,
          limits: await keyLimits(db, values),
        }),
        accountId,
        keyMode,
      );
      print(`created ${record.mode} key ${record.id}\n${key}\nStore it now: it is not shown again.`, {
        id: record.id,
        key,
      });
      return;
    }
    case "keys list": {
      for (const k of await listApiKeys(db, values.account)) {
        const state = k.revokedAt
          ? `revoked ${k.revokedAt.toISOString()}`
          : k.expiresAt && k.expiresAt <= new Date()
            ? `expired ${k.expiresAt.toISOString()}`
            : `active${k.expiresAt ? ` until ${k.expiresAt.toISOString()}` : ""}`;
        const models = k.allowedModels.length ? `  models ${k.allowedModels.join(",")}` : "";
        const budget = presentBudget(k);
        const spend = budget ? `  budget ${budget.used}/${budget.tokens} per ${budget.period}` : "";
        const atOnce = k.maxConcurrentRuns ? `  max ${k.maxConcurrentRuns} at once` : "";
        print(
          `${k.id}  ${k.accountId}  ${k.mode}  ${k.prefix}  ${state}  last used ${k.lastUsedAt?.toISOString() ?? "never"}${models}${spend}${atOnce}`,
          k,
        );
      }
      return;
    }
    case "keys revoke": {
      const revoked = await revokeKey(db, by, required(arg, "key id (positional)"));
      if (!revoked) throw new UsageError(`no key ${arg}`);
      print(`revoked ${revoked.id} at ${revoked.revokedAt?.toISOString()}`, revoked);
      return;
    }
    case "users create": {
      const result = await addPerson(db, by, required(values.account, "account"), {
        email: required(values.email, "email"),
        password: required(values.password, "password"),
        role: role(values.role),
      });
      switch (result.kind) {
        case "invalid":
          throw new UsageError(result.message);
        case "no_account":
          throw new UsageError(`no account ${values.account}`);
        case "email_taken":
          throw new UsageError(`a user with the email ${values.email} exists already`);
        case "created":
          print(`created ${result.user.role} ${result.user.email} (${result.user.id})`, result.user);
      }
      return;
    }
    case "users list": {
      for (const u of await listUsers(db, values.account)) {
        const state = u.disabledAt ? `disabled ${u.disabledAt.toISOString()}` : "active";
        print(
          `${u.id}  ${u.accountId}  ${u.email}  ${u.role}  ${state}  last sign-in ${u.lastSignInAt?.toISOString() ?? "never"}`,
          u,
        );
      }
      return;
    }
    case "users disable": {
      const email = required(arg, "email (positional)").toLowerCase();
      const found = await findPublicUserByEmail(db, email);
      const user = found && (await updatePerson(db, by, found.id, { disabled: true }, { operators: true }));
      if (!user || user === "operator") throw new UsageError(`no user ${arg}`);
      print(`disabled ${user.email}; their sessions have ended`, user);
      return;
    }
    case "demo": {
      const tokens = values.tokens ? positiveInt(values.tokens, "tokens") : 10_000;
      let account = await findAccountByName(db, DEMO_ACCOUNT_NAME);
      if (!account) {
        account = await createAccount(db, DEMO_ACCOUNT_NAME);
        await grantTokens(db, account.id, tokens, "demo grant");
      }
      // The keys printed last time stop working: a demo never piles up keys (API_KEYS_PER_MODE_MAX).
      await revokeKeysNamed(db, account.id, [DEMO_KEY_NAMES.live, DEMO_KEY_NAMES.test]);
      const live = await newKey(account.id, "live", DEMO_KEY_NAMES.live);
      const test = await newKey(account.id, "test", DEMO_KEY_NAMES.test);
      const balance = (await findAccount(db, account.id))!.balance;
      // A new password on every run: nothing fixed and public ever signs in to a running service.
      const demoUser = async (email: string, userRole: UserRole) => {
        const password = randomBytes(12).toString("base64url");
        if (await setUserPassword(db, email, await hashPassword(password))) return password;
        const added = await addUser(db, { accountId: account.id, email, password, role: userRole });
        if (added.kind !== "created")
          throw new Error(`the demo user ${email} could not be created (${added.kind})`);
        return password;
      };
      const password = await demoUser(DEMO_EMAIL, "owner");
      const operatorPassword = await demoUser(DEMO_OPERATOR_EMAIL, "operator");
      print(
        `demo account ${account.id} (balance ${balance} tokens)\nlive key: ${live.key}\ntest key: ${test.key}\nconsole sign-in: ${DEMO_EMAIL} / ${password}\noperator sign-in: ${DEMO_OPERATOR_EMAIL} / ${operatorPassword}`,
        {
          account: account.id,
          balance,
          live_key: live.key,
          test_key: test.key,
          email: DEMO_EMAIL,
          password,
          operator_email: DEMO_OPERATOR_EMAIL,
          operator_password: operatorPassword,
        },
      );
      return;
    }
    case "models import": {
      if (values.comfyui) {
        const readJson = async (file: string | undefined, what: string): Promise<unknown> => {
          try {
            return JSON.parse(await readFile(required(file, what), "utf8"));
          } catch (error) {
            if (error instanceof UsageError) throw error;
            throw new UsageError(`--${what}: ${(error as Error).message}`);
          }
        };
        const entry = await importComfyModel(db, by, {
          replace: values.replace,
          server: values.comfyui,
          workflow: await readJson(values.workflow, "workflow"),
          bindings: await readJson(values.bindings, "bindings"),
          category: (values.category ?? "image") as ModelCategory,
          id: required(values.id, "id"),
          name: values.name,
          description: values.description,
          price: positiveInt(values.price ?? "1", "price", MODEL_PRICE_MAX),
          status: values.status,
        }).catch((error: unknown) => {
          throw new UsageError((error as Error).message);
        });
        if (values.save) await saveToCatalogueFile(entry, repoPaths.catalogue);
        print(`imported ${entry.id}${values.save ? " (and saved to the catalogue file)" : ""}`, entry);
        return;
      }
      if (values.openai) {
        const keyVar = values["api-key-env"];
        const apiKey = keyVar ? process.env[keyVar] : undefined;
        if (keyVar && !apiKey) throw new UsageError(`--api-key-env: ${keyVar} is not set`);
        const entry = await importOpenAIModel(
          db,
          by,
          {
            replace: values.replace,
            server: values.openai,
            model: required(values.model, "model"),
            api: required(values.api, "api") as OpenAIServerApi,
            ...(apiKey && { apiKey }),
            id: required(values.id, "id"),
            name: values.name,
            description: values.description,
            price: positiveInt(values.price ?? "1", "price", MODEL_PRICE_MAX),
            status: values.status,
          },
          settings.secretsKey,
        ).catch((error: unknown) => {
          throw new UsageError((error as Error).message);
        });
        if (values.save) await saveToCatalogueFile(entry, repoPaths.catalogue);
        // The key is not printed, not even sealed.
        print(`imported ${entry.id}${values.save ? " (and saved to the catalogue file)" : ""}`, {
          ...entry,
          runner: { ...entry.runner, api_key_enc: undefined },
        });
        return;
      }
      if (!values.cog) throw new UsageError("--cog, --openai or --comfyui <base-url> is required");
      const entry = await importCogModel(db, by, {
        replace: values.replace,
        cog: values.cog,
        id: required(values.id, "id"),
        name: values.name,
        description: values.description,
        category: (values.category ?? "image") as ModelCategory,
        price: positiveInt(values.price ?? "1", "price", MODEL_PRICE_MAX),
        unit: values.unit,
        unitsFrom: values["units-from"],
        like: values.like,
        inputMap: await inputMapFile(values["input-map"]),
        status: values.status,
      }).catch((error: unknown) => {
        throw new UsageError((error as Error).message);
      });
      if (values.save) await saveToCatalogueFile(entry, repoPaths.catalogue);
      print(`imported ${entry.id}${values.save ? " (and saved to the catalogue file)" : ""}`, entry);
      return;
    }
    case "cog upload-url": {
      // What Cog servers are started with (--upload-url) so that their files come to the workers.
      const base = process.env.COG_CALLBACK_URL;
      if (!base) throw new UsageError("COG_CALLBACK_URL (the workers' callback address) is not set");
      if (!settings.secretsKey) throw new UsageError("SECRETS_KEY (the workers') is not set");
      const url = cogUploadUrl(base, settings.secretsKey);
      print(url, { upload_url: url });
      return;
    }
    case "models list": {
      for (const m of await listAllModels(db)) {
        const runner = m.runner.kind;
        print(
          `${m.id}  ${m.status}  ${m.category}  ${runner}  ${m.pricing.tokens_per_unit}/${m.pricing.unit}`,
          {
            id: m.id,
            status: m.status,
            runner,
          },
        );
      }
      return;
    }
    case "accounts set-limits": {
      if (!arg)
        throw new UsageError(
          "usage: accounts set-limits <acct_…> [--weight <n>] [--max-concurrent-runs <n>|default]",
        );
      const limit = values["max-concurrent-runs"];
      if (values.weight === undefined && limit === undefined)
        throw new UsageError("give --weight, --max-concurrent-runs, or both");
      const weight = values.weight === undefined ? undefined : positiveInt(values.weight, "weight");
      if (weight !== undefined && weight > 1_000) throw new UsageError("--weight must be at most 1000");
      const data = {
        ...(weight !== undefined && { weight }),
        ...(limit !== undefined && {
          maxConcurrentRuns: limit === "default" ? null : positiveInt(limit, "max-concurrent-runs"),
        }),
      };
      const account = await setAccountScheduling(db, by, arg, data);
      if (!account) throw new UsageError(`no account ${arg}`);
      print(
        `${arg}: weight=${account.weight} max_concurrent_runs=${account.maxConcurrentRuns ?? "default"}`,
        { id: arg, weight: account.weight, max_concurrent_runs: account.maxConcurrentRuns },
      );
      return;
    }
    case "models set-queue-cap": {
      const cap = positionals[3];
      if (!arg || !cap) throw new UsageError("usage: models set-queue-cap <model id> <n>|none");
      const maxQueue = cap === "none" ? null : positiveInt(cap, "queue cap");
      await changedModel(await changeModel(db, by, arg, { maxQueue }), arg);
      print(`${arg} queue cap: ${maxQueue ?? "none"}`, { id: arg, max_queue: maxQueue });
      return;
    }
    case "models set-status": {
      const status = positionals[3];
      if (!arg || !status || !/^[a-z_]+$/.test(status))
        throw new UsageError("usage: models set-status <model id> <status>");
      await changedModel(await changeModel(db, by, arg, { status }), arg);
      print(`${arg} is now ${status}`, { id: arg, status });
      return;
    }
    case "models set-servers": {
      const servers = positionals.slice(3);
      if (!arg || !servers.length)
        throw new UsageError("usage: models set-servers <model id> <url>… [--concurrency <n>]");
      const concurrency =
        values.concurrency === undefined ? undefined : positiveInt(values.concurrency, "concurrency", 1_000);
      await changedModel(
        await changeModel(db, by, arg, { servers, ...(concurrency !== undefined && { concurrency }) }),
        arg,
      );
      print(
        `${arg} is served by ${servers.join(" ")}${concurrency ? ` (${concurrency} at once each)` : ""}`,
        {
          id: arg,
          servers,
          ...(concurrency !== undefined && { concurrency }),
        },
      );
      return;
    }
    default:
      throw new UsageError(group ? `unknown command: ${positionals.join(" ")}` : "no command given");
  }
}
