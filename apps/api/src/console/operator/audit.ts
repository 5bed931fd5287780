// The audit log: who did what to which account or model, before and after, and why.
import { z } from "zod";
import { listAudit } from "@svc/use-cases";
import { cursorSchema, paginate } from "../../http/cursor.js";
import { pageLimit } from "../../http/validate.js";
import { route } from "../../http/route.js";
import * as R from "../../openapi/consoleResponses.js";
import { accountId, OPERATORS } from "./guards.js";

/** A page of audit entries (fetched limit + 1) as the operators' audit log and owners' security log show it. */
export function auditPage(entries: Awaited<ReturnType<typeof listAudit>>, limit: number) {
  const { page, nextCursor } = paginate(entries, limit);
  return {
    entries: page.map((e) => ({
      id: e.id,
      actor_email: e.actorEmail,
      action: e.action,
      account_id: e.accountId,
      target_id: e.targetId,
      before: e.before,
      after: e.after,
      reason: e.reason,
      created_at: e.createdAt.toISOString(),
    })),
    next_cursor: nextCursor,
  };
}

const readAudit = route({
  method: "get",
  path: "/operator/audit",
  guards: OPERATORS,
  summary: "The audit log, newest first: who did what to which account or model, before and after",
  query: z.object({ limit: pageLimit, cursor: cursorSchema.optional(), account_id: accountId.optional() }),
  reply: { status: 200, schema: R.AuditPage, description: "A page of the audit log" },
  async handler({ query }, { deps }) {
    const entries = await listAudit(deps.db, {
      ...(query.account_id && { accountId: query.account_id }),
      after: query.cursor,
      limit: query.limit + 1,
    });
    return { data: auditPage(entries, query.limit) };
  },
});

export const AUDIT_ROUTES = [readAudit];
