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

/**
 * Null when the email is taken (emails are unique across accounts: sign-in starts from one). A
 * taken email inserts nothing rather than failing, so that a caller's transaction goes on.
 */
export async function createUser(
  db: Db | Prisma.TransactionClient,
  user: { accountId: string; email: string; passwordHash: string; role: UserRole },
) {
  const [created] = await db.user.createManyAndReturn({
    data: [{ id: newId("usr"), ...user, email: user.email.toLowerCase() }],
    skipDuplicates: true,
    select: PUBLIC_USER,
  });
  return created ?? null;
}

/** People of an account, disabled ones included. */
export function countUsers(db: Db | Prisma.TransactionClient, accountId: string) {
  return db.user.count({ where: { accountId } });
}

export function listUsers(db: Db, accountId?: string) {
  return db.user.findMany({
    where: accountId ? { accountId } : {},
    orderBy: { createdAt: "asc" },
    select: PUBLIC_USER,
  });
}

export function findPublicUserByEmail(db: Db, email: string) {
  return db.user.findUnique({ where: { email: email.toLowerCase() }, select: PUBLIC_USER });
}

/** The user with its hash, for the password check at sign-in only. */
export function findUserForSignIn(db: Db, email: string) {
  return db.user.findUnique({ where: { email: email.toLowerCase() } });
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

export function findPublicUser(db: Db | Prisma.TransactionClient, id: string) {
  return db.user.findUnique({ where: { id }, select: PUBLIC_USER });
}

/** A person's role, or when they were disabled (null: enabled), in the caller's transaction. */
export function updateUser(
  tx: Prisma.TransactionClient,
  id: string,
  change: { role?: UserRole; disabledAt?: Date | null },
) {
  return tx.user.update({ where: { id }, data: change, select: PUBLIC_USER });
}
