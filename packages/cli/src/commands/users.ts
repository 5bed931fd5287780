// users create|list|disable.
import { USER_ROLES, type UserRole } from "@svc/core";
import { findPublicUserByEmail, listUsers } from "@svc/db";
import { addPerson, updatePerson } from "@svc/use-cases";
import { required, UsageError, type Command } from "../command.js";

/** The role asked for; none: the use-case's default (the account's first person is its owner). */
function role(value: string | undefined): UserRole | undefined {
  if (value === undefined) return undefined;
  if (!(USER_ROLES as readonly string[]).includes(value))
    throw new UsageError(`--role must be one of ${USER_ROLES.join(", ")}`);
  return value as UserRole;
}

export const USER_COMMANDS: Record<string, Command> = {
  "users create": {
    usage: `users create --account <acct_…> --email <email> --password <password> [--role owner|member|operator]
                                                  a person who signs in to the web console (default role: owner
                                                  for the account's first person, member after); an
                                                  operator also manages every account, the catalogue
                                                  and reads the audit log in the console`,
    flags: ["account", "email", "password", "role"],
    async run({ db, by, values, print }) {
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
    },
  },
  "users list": {
    usage: `users list [--account <acct_…>]                 list console users (never their password hashes)`,
    flags: ["account"],
    async run({ db, values, print }) {
      for (const u of await listUsers(db, values.account)) {
        const state = u.disabledAt ? `disabled ${u.disabledAt.toISOString()}` : "active";
        print(
          `${u.id}  ${u.accountId}  ${u.email}  ${u.role}  ${state}  last sign-in ${u.lastSignInAt?.toISOString() ?? "never"}`,
          u,
        );
      }
    },
  },
  "users disable": {
    usage: `users disable <email>                           disable a user and end their sessions`,
    async run({ db, by, args: [given], print }) {
      const email = required(given, "email (positional)").toLowerCase();
      const found = await findPublicUserByEmail(db, email);
      const user = found && (await updatePerson(db, by, found.id, { disabled: true }, { operators: true }));
      if (!user || user === "operator") throw new UsageError(`no user ${given}`);
      print(`disabled ${user.email}; their sessions have ended`, user);
    },
  },
};
