// demo: the demo account, its keys and its console sign-ins (what `pnpm start` prints).
import { randomBytes } from "node:crypto";
import type { UserRole } from "@svc/core";
import {
  createAccount,
  createApiKey,
  findAccount,
  findAccountByName,
  grantTokens,
  revokeKeysNamed,
  setUserPassword,
  type Db,
} from "@svc/db";
import { addUser, hashPassword } from "@svc/use-cases";
import { positiveInt, type Command, type CommandSettings } from "../command.js";
import { atCap } from "./keys.js";

export const DEMO_ACCOUNT_NAME = "demo";
export const DEMO_EMAIL = "demo@example.com";
/** The demo's operator: the operator console (every account, the catalogue, the audit log). */
export const DEMO_OPERATOR_EMAIL = "operator@example.com";
const DEMO_KEY_NAMES = { live: "demo live", test: "demo test" } as const;

/** A new password on every run: nothing fixed and public ever signs in to a running service. */
async function demoUser(db: Db, accountId: string, email: string, role: UserRole): Promise<string> {
  const password = randomBytes(12).toString("base64url");
  if (await setUserPassword(db, email, await hashPassword(password))) return password;
  const added = await addUser(db, { accountId, email, password, role });
  if (added.kind !== "created")
    throw new Error(`the demo user ${email} could not be created (${added.kind})`);
  return password;
}

async function demoKey(db: Db, settings: CommandSettings, accountId: string, mode: "live" | "test") {
  const max = settings.API_KEYS_PER_MODE_MAX;
  return atCap(await createApiKey(db, accountId, mode, DEMO_KEY_NAMES[mode], max), accountId, mode, max);
}

export const DEMO_COMMANDS: Record<string, Command> = {
  demo: {
    usage: `demo [--tokens <n>]                             ensure the demo account and its console user (new password
                                                  each time) and print a new live and test key (the
                                                  previous demo keys are revoked)`,
    flags: ["tokens"],
    async run({ db, settings, values, print }) {
      const tokens = values.tokens ? positiveInt(values.tokens, "tokens") : 10_000;
      let account = await findAccountByName(db, DEMO_ACCOUNT_NAME);
      if (!account) {
        account = await createAccount(db, DEMO_ACCOUNT_NAME);
        await grantTokens(db, account.id, tokens, "demo grant");
      }
      // The keys printed last time stop working: a demo never piles up keys (API_KEYS_PER_MODE_MAX).
      await revokeKeysNamed(db, account.id, [DEMO_KEY_NAMES.live, DEMO_KEY_NAMES.test]);
      const live = await demoKey(db, settings, account.id, "live");
      const test = await demoKey(db, settings, account.id, "test");
      const balance = (await findAccount(db, account.id))!.balance;
      const password = await demoUser(db, account.id, DEMO_EMAIL, "owner");
      const operatorPassword = await demoUser(db, account.id, DEMO_OPERATOR_EMAIL, "operator");
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
    },
  },
};
