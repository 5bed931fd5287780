import { newId } from "@svc/core";
import { findMany, type Db } from "../client.js";
import type { Prisma } from "../generated/prisma/client.js";

export function createSession(
  db: Db,
  session: { userId: string; tokenHash: string; csrfToken: string; expiresAt: Date },
) {
  return db.consoleSession.create({ data: { id: newId("ses"), ...session } });
}

/** The session with its user and account, or null; expiry is the caller's rule. */
export function findSession(db: Db, tokenHash: string) {
  return db.consoleSession.findUnique({
    where: { tokenHash },
    select: {
      id: true,
      csrfToken: true,
      createdAt: true,
      lastSeenAt: true,
      expiresAt: true,
      user: {
        select: {
          id: true,
          email: true,
          role: true,
          disabledAt: true,
          account: { select: { id: true, name: true } },
        },
      },
    },
  });
}

export type SessionRecord = NonNullable<Awaited<ReturnType<typeof findSession>>>;

export async function touchSession(db: Db, id: string, at: Date): Promise<void> {
  await db.consoleSession.updateMany({ where: { id }, data: { lastSeenAt: at } });
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.consoleSession.deleteMany({ where: { tokenHash } });
}

/** A user's sessions past their absolute expiry or idle since before idleBefore. */
export async function deleteExpiredSessions(
  db: Db,
  userId: string,
  now: Date,
  idleBefore: Date,
): Promise<number> {
  const { count } = await db.consoleSession.deleteMany({
    where: { userId, OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: idleBefore } }] },
  });
  return count;
}

/**
 * Which of these sessions still stand: not signed out, not past their absolute expiry, their user
 * not disabled (idleness is judged at each request; a held stream is activity).
 */
export async function standingSessionIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const rows = await findMany<{ id: string }>(
    db,
    "console_sessions_standing",
    `SELECT s.id FROM console_sessions s JOIN users u ON u.id = s.user_id
     WHERE s.id = ANY($1) AND s.expires_at > now() AND u.disabled_at IS NULL`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Ends every session of a person (disabled). */
export async function endSessionsOf(db: Db | Prisma.TransactionClient, userId: string): Promise<void> {
  await db.consoleSession.deleteMany({ where: { userId } });
}
