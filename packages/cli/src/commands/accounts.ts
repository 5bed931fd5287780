// accounts create|list|set-limits, tokens grant.
import { MAX_TOKENS } from "@svc/core";
import { listAccounts } from "@svc/db";
import { adjustTokens, openAccount, setAccountScheduling } from "@svc/use-cases";
import { positiveInt, required, tokenAmount, UsageError, type Command } from "../command.js";

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  "accounts create": {
    usage: `accounts create --name <name> [--tokens <n>]   create an account (optionally with tokens)`,
    flags: ["name", "tokens"],
    async run({ db, by, values, print }) {
      const name = required(values.name, "name");
      const tokens = values.tokens === undefined ? 0 : tokenAmount(values.tokens, "tokens");
      const account = await openAccount(db, by, name, tokens);
      print(`created account ${account.id}`, { id: account.id });
    },
  },
  "accounts list": {
    usage: `accounts list                                   list accounts with balance, reserved tokens and scheduling`,
    async run({ db, print }) {
      for (const a of await listAccounts(db))
        print(
          `${a.id}  ${a.name}  balance=${a.balance} reserved=${a.reserved} weight=${a.weight} max_concurrent_runs=${a.maxConcurrentRuns ?? "default"}`,
          a,
        );
    },
  },
  "accounts set-limits": {
    usage: `accounts set-limits <acct_…> [--weight <n>] [--max-concurrent-runs <n>|default]
                                                  the account's share of busy models (weight, 1 by default)
                                                  and its runs executing at once (default:
                                                  ACCOUNT_MAX_CONCURRENT_RUNS); its waiting runs follow within
                                                  a sweep (SWEEP_INTERVAL_MS), new ones within seconds`,
    flags: ["weight", "max-concurrent-runs"],
    async run({ db, by, values, args: [id], print }) {
      if (!id)
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
      const account = await setAccountScheduling(db, by, id, data);
      if (!account) throw new UsageError(`no account ${id}`);
      print(`${id}: weight=${account.weight} max_concurrent_runs=${account.maxConcurrentRuns ?? "default"}`, {
        id,
        weight: account.weight,
        max_concurrent_runs: account.maxConcurrentRuns,
      });
    },
  },
  "tokens grant": {
    usage: `tokens grant --account <acct_…> --amount <n>    add tokens to an account (ledger GRANT); a balance
                                                  holds at most ${MAX_TOKENS} tokens`,
    flags: ["account", "amount"],
    async run({ db, by, values, print }) {
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
    },
  },
};
