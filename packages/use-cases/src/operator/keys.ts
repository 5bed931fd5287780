// API keys issued and revoked by an operator (the CLI), each audited in its own transaction.
import type { Mode } from "@svc/core";
import { appendAudit, createApiKey, revokeApiKey, type Db, type KeyLimits } from "@svc/db";
import type { ActedBy } from "./actedBy.js";

/** An API key made by an operator (the CLI), audited in its transaction; null at the account's cap. */
export function issueKey(
  db: Db,
  { actor, reason }: ActedBy,
  key: { accountId: string; mode: Mode; name: string; max: number; limits?: KeyLimits },
) {
  return createApiKey(db, key.accountId, key.mode, key.name, key.max, key.limits, (tx, record) =>
    appendAudit(tx, {
      actor,
      action: "key.create",
      accountId: record.accountId,
      targetId: record.id,
      before: null,
      after: { name: record.name, mode: record.mode, prefix: record.prefix },
      reason,
    }),
  );
}

/** An API key revoked by an operator (the CLI), audited in its transaction; null when unknown. */
export function revokeKey(db: Db, { actor, reason }: ActedBy, keyId: string) {
  return revokeApiKey(db, keyId, (tx, key) =>
    appendAudit(tx, {
      actor,
      action: "key.revoke",
      accountId: key.accountId,
      targetId: key.id,
      before: { name: key.name, mode: key.mode, revoked: false },
      after: { revoked: true },
      reason,
    }),
  );
}
