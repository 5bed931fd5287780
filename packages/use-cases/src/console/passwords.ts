import { hash, verify } from "@node-rs/argon2";

// Argon2id with OWASP's first recommended setting (19 MiB, 2 passes, 1 lane): tens of ms per hash on
// these machines, computed on libuv's thread pool, so a sign-in never blocks the event loop.
const OPTIONS = {
  algorithm: 2 /* Algorithm.Argon2id, a const enum */,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// A hash of nothing anyone knows, checked when the email is unknown so that an unknown email and
// a wrong password take the same time (no user enumeration by timing).
let decoy: Promise<string> | undefined;

/** True when the password matches; with no stored hash, spends the same time and says false. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  const target = stored ?? (await decoy);
  const ok = await verify(target, password).catch(() => false);
  return stored !== null && ok;
}

// The ranked list of common passwords zxcvbn-ts ships (about 49,000; 1,557 of 10+ characters),
// loaded once, the first time a password is set.
let common: Promise<ReadonlySet<string>> | undefined;
const commonPasswords = () =>
  (common ??= import("@zxcvbn-ts/language-common").then(
    ({ dictionary }) => new Set(dictionary["passwords-common"]),
  ));

/**
 * Why a new password is too easy to guess (one character repeated, or among the most common
 * passwords, in any case), or null. Length is passwordSchema's rule.
 */
export async function weakPassword(password: string): Promise<string | null> {
  if (/^(.)\1*$/su.test(password)) return "expected more than one character, repeated";
  if ((await commonPasswords()).has(password.toLowerCase()))
    return "this password is one of the most common ones; choose another";
  return null;
}
