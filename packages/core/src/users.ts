import { z } from "zod";

export const USER_ROLES = ["owner", "member", "operator"] as const;
export type UserRole = (typeof USER_ROLES)[number];
/** The roles an operator gives people of an account in the console (operators are made with the CLI). */
export const ACCOUNT_ROLES = ["owner", "member"] as const;

/** Lower-cased; the shape only (nobody is emailed). */
export const emailSchema = z
  .email("expected an email address")
  .max(254, "expected an email address of at most 254 characters")
  .transform((email) => email.toLowerCase());

/**
 * Long enough to resist guessing behind the sign-in rate limits; bounded so that hashing a
 * submitted password costs the same whatever is sent.
 */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `expected a password of at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `expected a password of at most ${PASSWORD_MAX} characters`);

/**
 * What each role may do in the console. Members see everything of their account and run models;
 * managing credentials (API keys, webhook endpoints and their secrets) is for owners.
 */
export function mayManageCredentials(role: UserRole): boolean {
  return role === "owner";
}

/**
 * Operators run the service: every account's balance, people and limits, and the catalogue. They
 * never see key or webhook secrets (no operator route returns them), and in their own account
 * they read like a member.
 */
export function isOperator(role: UserRole): boolean {
  return role === "operator";
}
