import { newId } from "@svc/core";
import type { Db } from "../client.js";
import { Prisma, type UserRole } from "../generated/prisma/client.js";

/** What the console may show of a user: never the password hash. */
export const PUBLIC_USER = {
  id: true,
  accountId: true,
  email: true,
  role: true,
  createdAt: true,
  lastSignInAt: true,
  disabledAt: true,
} as const;

/** Null when the email is taken (emails are unique across accounts: sign-in starts from one). */
export async function createUser(
  db: Db,
  user: { accountId: string; email: string; passwordHash: string; role: UserRole },
) {
  try {
    return await db.user.create({
      data: { id: newId("usr"), ...user, email: user.email.toLowerCase() },
      select: PUBLIC_USER,
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return null;
    throw error;
  }
}

/** People of an account, disabled ones included. */
export function countUsers(db: Db, accountId: string) {
  return db.user.count({ where: { accountId } });
}

export function listUsers(db: Db, accountId?: string) {
  return db.user.findMany({
    where: accountId ? { accountId } : {},
    orderBy: { createdAt: "asc" },
    select: PUBLIC_USER,
  });
}

/** The user with its hash, for the password check at sign-in only. */
export function findUserForSignIn(db: Db, email: string) {
  return db.user.findUnique({ where: { email: email.toLowerCase() } });
}

/** Disables the user and ends every session of theirs. Null when the email is unknown. */
export async function disableUser(db: Db, email: string) {
  const [, user] = await db.$transaction([
    db.user.updateMany({
      where: { email: email.toLowerCase(), disabledAt: null },
      data: { disabledAt: new Date() },
    }),
    db.user.findUnique({ where: { email: email.toLowerCase() }, select: PUBLIC_USER }),
    db.consoleSession.deleteMany({ where: { user: { email: email.toLowerCase() } } }),
  ]);
  return user;
}

export function recordSignIn(db: Db, userId: string, at: Date) {
  return db.user.update({ where: { id: userId }, data: { lastSignInAt: at }, select: { id: true } });
}

/** Sets a new password hash (and enables the user); null when the email is unknown. */
export async function setUserPassword(db: Db, email: string, passwordHash: string) {
  const { count } = await db.user.updateMany({
    where: { email: email.toLowerCase() },
    data: { passwordHash, disabledAt: null },
  });
  return count ? { email: email.toLowerCase() } : null;
}
