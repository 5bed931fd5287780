// The operator console's API: every account (balance, reserved, usage, weight, concurrency),
// token grants and deductions with a reason, people per account, the model catalogue and its
// queues, and the audit log of all of it. Operators only (role "operator", made with the CLI);
// every change goes through packages/use-cases/src/operator, which writes the audit entry in the
// change's own transaction. No answer here carries a key's or an endpoint's secret.
import type { Route } from "../../http/route.js";
import { ACCOUNT_ROUTES } from "./accounts.js";
import { AUDIT_ROUTES } from "./audit.js";
import { MODEL_ROUTES } from "./models.js";
import { PEOPLE_ROUTES } from "./people.js";

export { nobody, operatorsOnly } from "./guards.js";
export { auditPage } from "./audit.js";

/** Every operator route, each behind the operators guard. */
export const OPERATOR_ROUTES: Route[] = [
  ...ACCOUNT_ROUTES,
  ...PEOPLE_ROUTES,
  ...MODEL_ROUTES,
  ...AUDIT_ROUTES,
];
