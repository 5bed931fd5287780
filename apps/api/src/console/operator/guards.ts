// Who may call the operator routes, what every operator action carries into its audit entry, and
// the fields several routes take.
import type { RequestHandler } from "express";
import { z } from "zod";
import { ApiError, isOperator } from "@svc/core";
import type { ActedBy } from "@svc/use-cases";
import type { Guard } from "../../http/route.js";
import { sessionOf } from "../session.js";

/** Where no signed-in person calls (an API key, no credential), no route is an operator's. */
export const nobody: RequestHandler = () => {
  throw new ApiError("FORBIDDEN", "Only an operator of the service, signed in to the console, can do this.");
};

export const operatorsOnly: RequestHandler = (_req, res, next) => {
  if (!isOperator(sessionOf(res).user.role))
    throw new ApiError("FORBIDDEN", "Only an operator of the service can do this.");
  next();
};

export const OPERATORS: Guard[] = ["operators"];

/** The operator signed in, and the reason their request gives: what the audit entry records. */
export const actedBy = (res: Parameters<typeof sessionOf>[0], reason: string): ActedBy => {
  const { user } = sessionOf(res);
  return { actor: { id: user.id, email: user.email }, reason };
};

/** Every operator action says why: the audit log and the account's security log show it. */
const NO_REASON = "expected a reason (the audit log and the account's security log show it)";
export const reason = z.string(NO_REASON).trim().min(1, NO_REASON).max(500);

export const accountId = z.string().max(100);
export const tokensField = z.int("expected a whole number of tokens");
