import { newId } from "@svc/core";
import type { Db } from "../client.js";
import type { Prisma } from "../generated/prisma/client.js";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";

/** One operator action, as the audit log keeps it. */
export interface AuditRecord {
  actor: { id: string; email: string };
  action: string;
  accountId: string | null;
  targetId: string;
  before: unknown;
  after: unknown;
  reason?: string;
}

/** Appends an entry in the caller's transaction, so the log holds an action exactly when it happened. */
export function appendAudit(tx: Prisma.TransactionClient, record: AuditRecord) {
  return tx.auditEntry.create({
    data: {
      id: newId("aud"),
      actorId: record.actor.id,
      actorEmail: record.actor.email,
      action: record.action,
      accountId: record.accountId,
      targetId: record.targetId,
      before: (record.before ?? undefined) as Prisma.InputJsonValue | undefined,
      after: (record.after ?? undefined) as Prisma.InputJsonValue | undefined,
      reason: record.reason ?? "",
    },
  });
}

/** The audit log newest first, in keyset pages, optionally of one account. */
export function listAudit(db: Db, f: { accountId?: string; after?: Position; limit: number }) {
  return db.auditEntry.findMany({
    where: { ...(f.accountId && { accountId: f.accountId }), ...pastPosition(f.after) },
    orderBy: NEWEST_FIRST,
    take: f.limit,
  });
}
