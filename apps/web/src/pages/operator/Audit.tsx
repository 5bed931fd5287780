// Every operator action, from the console or the CLI.
import { AuditLog } from "../AuditLog";

export function OperatorAudit() {
  return (
    <AuditLog
      title="Audit log"
      lead="Every operator action, from the console or the CLI: who, what, when, the state before and after, and why."
      path="/operator/audit"
      queryKey={["operator", "audit"]}
      linkAccounts
    />
  );
}
