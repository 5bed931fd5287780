// A run's files, and deleting them: one rule for every API style that offers it (OpenAI's
// videos.delete today). A run's files are the ones it made (under its own output tokens, core's
// runFilesIn), never every URL of ours its output names.
import { isTerminal, runFilesIn, type Mode } from "@svc/core";
import { findRunForAccount, type Db } from "@svc/db";
import type { OutputStore } from "@svc/storage";
import type { RunLifecycle } from "./lifecycle.js";

export interface RunFilesDeps {
  db: Db;
  runs: Pick<RunLifecycle, "cancel">;
  store: Pick<OutputStore, "remove">;
  publicBaseUrl: string;
  secretsKey: Buffer;
}

/**
 * Deletes what a run made: a run still queued or executing is canceled first (charged what it
 * delivered, by the partial-cancel rules), then the files of the run as it ended are removed. Its
 * record stays in the account's history and ledger. false: no such run of the owner's.
 */
export async function deleteRunFiles(
  deps: RunFilesDeps,
  owner: { accountId: string; mode: Mode },
  runId: string,
): Promise<boolean> {
  let run = await findRunForAccount(deps.db, runId, owner.accountId, owner.mode);
  if (!run) return false;
  if (!isTerminal(run.status)) {
    await deps.runs.cancel(owner, run.id);
    run = (await findRunForAccount(deps.db, runId, owner.accountId, owner.mode)) ?? run;
  }
  const keys = runFilesIn(run.output, deps.publicBaseUrl, deps.secretsKey, run.id).map(([, key]) => key);
  if (keys.length) await deps.store.remove(keys);
  return true;
}
