// Who acts, and why: what every operator action carries into its audit entry. Each operator
// change and its audit entry (who, what, before, after, why) are one transaction, so the log holds
// an action exactly when it happened.

/** The operator acting, as the audit log names them (the CLI: cliActor). */
export interface Actor {
  id: string;
  email: string;
}

/** Who acts, and why: every operator action carries both into its audit entry. */
export interface ActedBy {
  actor: Actor;
  reason: string;
}

/** The CLI's actor: the operating-system user who ran it, on which host. */
export function cliActor(user: string, host: string): Actor {
  return { id: "cli", email: `cli:${user}@${host}` };
}
