import { newId } from "@svc/core";
import type { Db } from "../client.js";

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
