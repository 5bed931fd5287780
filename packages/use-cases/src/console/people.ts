import { createHash, randomBytes } from "node:crypto";
import { emailSchema, passwordSchema, type UserRole } from "@svc/core";
import {
  appendAudit,
  createSession,
  countUsers,
  createUser,
  deleteExpiredSessions,
  deleteSession,
  findAccount,
  findSession,
  findUserForSignIn,
  recordSignIn,
  touchSession,
  type AuditRecord,
  type Db,
  type SessionRecord,
} from "@svc/db";
import { checkPassword, hashPassword, weakPassword } from "./passwords.js";

type CreatedUser = NonNullable<Awaited<ReturnType<typeof createUser>>>;

export type CreateUserResult =
  | { kind: "created"; user: CreatedUser }
  | { kind: "invalid"; message: string }
  | { kind: "no_account" }
  | { kind: "email_taken" };

/**
 * A console user of an account, with the password hashed (Argon2id) before it is stored. Without a
 * role, the account's first person becomes its owner (someone must be able to create its keys)
 * and later ones members. `audit`: the entry that records the creation, in its transaction.
 */
export async function addUser(
  db: Db,
  input: { accountId: string; email: string; password: string; role?: UserRole },
  audit?: (user: CreatedUser) => AuditRecord,
): Promise<CreateUserResult> {
  const email = emailSchema.safeParse(input.email);
  if (!email.success) return { kind: "invalid", message: email.error.issues[0]!.message };
  const password = passwordSchema.safeParse(input.password);
  if (!password.success) return { kind: "invalid", message: password.error.issues[0]!.message };
  const weak = await weakPassword(password.data);
  if (weak) return { kind: "invalid", message: weak };
  if (!(await findAccount(db, input.accountId))) return { kind: "no_account" };
  // Hashed before the transaction: Argon2id takes a while, and holds no row meanwhile.
  const passwordHash = await hashPassword(password.data);
  return db.$transaction(async (tx) => {
    const user = await createUser(tx, {
      accountId: input.accountId,
      email: email.data,
      passwordHash,
      role: input.role ?? ((await countUsers(tx, input.accountId)) === 0 ? "owner" : "member"),
    });
    if (!user) return { kind: "email_taken" as const };
    if (audit) await appendAudit(tx, audit(user));
    return { kind: "created" as const, user };
  });
}

export interface SessionPolicy {
  /** A session unused for this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, however active. */
  absoluteMs: number;
}

export interface OpenedSession {
  /** The cookie's value; only its hash is stored. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Email and password to a new session, or null. Unknown email, wrong password and a disabled user
 * are one answer, in the same time, so that sign-in does not tell which emails exist.
 */
export async function signIn(
  db: Db,
  email: string,
  password: string,
  policy: SessionPolicy,
  now = new Date(),
): Promise<OpenedSession | null> {
  const user = await findUserForSignIn(db, email);
  const matches = await checkPassword(user?.passwordHash ?? null, password);
  if (!user || !matches || user.disabledAt) return null;
  const session: OpenedSession = {
    token: randomBytes(32).toString("base64url"),
    csrfToken: randomBytes(32).toString("base64url"),
    expiresAt: new Date(now.getTime() + policy.absoluteMs),
  };
  // Sessions that ended without a sign-out (a closed browser) are swept at the user's next
  // sign-in: the table holds at most a user's recent sessions, with no timer anywhere.
  await deleteExpiredSessions(db, user.id, now, new Date(now.getTime() - policy.idleMs));
  await createSession(db, {
    userId: user.id,
    tokenHash: hashToken(session.token),
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
  });
  await recordSignIn(db, user.id, now);
  return session;
}

// Idle time is measured from last_seen_at, written at most this often (not on every request).
const TOUCH_EVERY_MS = 60_000;

/** The live session a cookie names, or null (unknown, expired, idle too long, user disabled). */
export async function resolveSession(
  db: Db,
  token: string,
  policy: SessionPolicy,
  now = new Date(),
): Promise<SessionRecord | null> {
  const session = await findSession(db, hashToken(token));
  if (!session) return null;
  const idleFor = now.getTime() - session.lastSeenAt.getTime();
  if (session.expiresAt <= now || idleFor >= policy.idleMs || session.user.disabledAt) {
    await deleteSession(db, hashToken(token));
    return null;
  }
  if (idleFor >= TOUCH_EVERY_MS) await touchSession(db, session.id, now);
  return session;
}

export function signOut(db: Db, token: string): Promise<void> {
  return deleteSession(db, hashToken(token));
}
