// An account's people for its operator: adding one, changing a role, disabling or enabling.
import { z } from "zod";
import { ACCOUNT_ROLES, ApiError, PASSWORD_MAX } from "@svc/core";
import { addPerson, listUsers, updatePerson } from "@svc/use-cases";
import { route } from "../../http/route.js";
import * as R from "../../openapi/consoleResponses.js";
import { sessionOf } from "../session.js";
import { accountId, actedBy, OPERATORS, reason } from "./guards.js";

type PersonRow = Awaited<ReturnType<typeof listUsers>>[number];
export const presentPerson = (p: PersonRow) => ({
  id: p.id,
  email: p.email,
  role: p.role,
  created_at: p.createdAt.toISOString(),
  last_sign_in_at: p.lastSignInAt?.toISOString() ?? null,
  disabled_at: p.disabledAt?.toISOString() ?? null,
});

const createPerson = route({
  method: "post",
  path: "/operator/accounts/{accountId}/people",
  guards: OPERATORS,
  summary: "Add a person (owner or member) who signs in to the account's console",
  params: z.object({ accountId }),
  body: {
    schema: z.strictObject({
      email: z.string().max(320),
      password: z.string().max(PASSWORD_MAX * 4),
      role: z.enum(ACCOUNT_ROLES, `expected one of ${ACCOUNT_ROLES.join(", ")}`),
      reason,
    }),
    example: {
      email: "ada@example.com",
      password: "a long enough password",
      role: "member",
      reason: "support ticket 4711: owner locked out",
    },
  },
  errors: [400, 404, 409],
  reply: { status: 201, schema: R.PersonResponse, description: "The person" },
  async handler({ params, body }, { res, deps }) {
    const { reason: why, ...person } = body;
    const result = await addPerson(deps.db, actedBy(res, why), params.accountId, person);
    switch (result.kind) {
      case "invalid":
        throw new ApiError("VALIDATION_ERROR", result.message, [
          { path: "password", message: result.message },
        ]);
      case "no_account":
        throw new ApiError("NOT_FOUND", `No account with id ${JSON.stringify(params.accountId)}.`);
      case "email_taken":
        throw new ApiError("VALIDATION_ERROR", "A person with this email exists already.", [
          { path: "email", message: "taken" },
        ]);
      case "created":
        return { data: presentPerson(result.user) };
    }
  },
});

const changePerson = route({
  method: "patch",
  path: "/operator/people/{userId}",
  guards: OPERATORS,
  summary: "Change a person's role, or disable (ending their sessions) or enable them",
  params: z.object({ userId: z.string().max(100) }),
  body: {
    schema: z
      .strictObject({
        role: z.enum(ACCOUNT_ROLES, `expected one of ${ACCOUNT_ROLES.join(", ")}`).optional(),
        disabled: z.boolean().optional(),
        reason,
      })
      .refine((b) => b.role !== undefined || b.disabled !== undefined, "expected role or disabled"),
    example: { disabled: true, reason: "left the company" },
  },
  errors: [400, 404],
  reply: { status: 200, schema: R.PersonResponse, description: "The person now" },
  async handler({ params, body }, { res, deps }) {
    if (params.userId === sessionOf(res).user.id)
      throw new ApiError("VALIDATION_ERROR", "Operators are managed with the CLI.", [
        { path: "userId", message: "your own account" },
      ]);
    const { reason: why, ...change } = body;
    const changed = await updatePerson(deps.db, actedBy(res, why), params.userId, change);
    if (!changed) throw new ApiError("NOT_FOUND", `No person with id ${JSON.stringify(params.userId)}.`);
    if (changed === "operator")
      throw new ApiError("VALIDATION_ERROR", "Operators are managed with the CLI.", [
        { path: "userId", message: "an operator" },
      ]);
    return { data: presentPerson(changed) };
  },
});

export const PEOPLE_ROUTES = [createPerson, changePerson];
