// What an operator does to an account's people: adding one, changing a role, disabling (which ends
// their sessions) or enabling.
import type { ACCOUNT_ROLES, UserRole } from "@svc/core";
import { appendAudit, endSessionsOf, findPublicUser, updateUser, type Db } from "@svc/db";
import { addUser, type CreateUserResult } from "../console/people.js";
import type { ActedBy } from "./actedBy.js";

/**
 * A person of an account (an owner or member; operators are made with the CLI), created and
 * audited in one transaction: the account's owners see it in their security log.
 */
export async function addPerson(
  db: Db,
  { actor, reason }: ActedBy,
  accountId: string,
  person: { email: string; password: string; role?: UserRole },
): Promise<CreateUserResult> {
  return addUser(db, { accountId, ...person }, (user) => ({
    actor,
    action: "person.create",
    accountId,
    targetId: user.id,
    before: null,
    after: { email: user.email, role: user.role },
    reason,
  }));
}

/**
 * Changes a person's role or disables them (ending their sessions); enabling again is allowed. Null
 * when unknown, "operator" when the person is an operator (they are managed with the CLI).
 */
export async function updatePerson(
  db: Db,
  { actor, reason }: ActedBy,
  userId: string,
  change: { role?: (typeof ACCOUNT_ROLES)[number]; disabled?: boolean },
  { operators = false } = {},
) {
  return db.$transaction(async (tx) => {
    const before = await findPublicUser(tx, userId);
    if (!before) return null;
    // Operators are managed with the CLI (which may disable one), never from the console.
    if (before.role === ("operator" satisfies UserRole) && !operators) return "operator" as const;
    const after = await updateUser(tx, userId, {
      ...(change.role && { role: change.role }),
      ...(change.disabled !== undefined && {
        disabledAt: change.disabled ? (before.disabledAt ?? new Date()) : null,
      }),
    });
    if (change.disabled) await endSessionsOf(tx, userId);
    await appendAudit(tx, {
      actor,
      action: "person.update",
      accountId: before.accountId,
      targetId: userId,
      before: { role: before.role, disabled: before.disabledAt !== null },
      after: { role: after.role, disabled: after.disabledAt !== null },
      reason,
    });
    return after;
  });
}
