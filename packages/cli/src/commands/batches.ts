// batches list|cancel: every account's batches for an operator (issue #61).
import { batchCountsOf } from "@svc/core";
import { findBatchById, listAllBatches } from "@svc/db";
import { markBatchCanceled } from "@svc/use-cases";
import { UsageError, type Command } from "../command.js";

export const BATCH_COMMANDS: Record<string, Command> = {
  "batches list": {
    usage: `batches list [--account <acct_…>]               batches across accounts: status, lines done, tokens`,
    flags: ["account"],
    async run({ db, values, print }) {
      const batches = await listAllBatches(db, values.account);
      for (const b of batches) {
        const c = batchCountsOf(b);
        print(
          `${b.id}  ${b.accountId}  ${b.mode}  ${b.modelId}  ${b.status}${b.pausedReason ? ` (${b.pausedReason})` : ""}  ${c.completed + c.failed}/${b.total} done  ${c.failed} failed  ${c.tokensCharged} tokens`,
          { id: b.id, account_id: b.accountId, model_id: b.modelId, status: b.status, ...c, total: b.total },
        );
      }
    },
  },
  "batches cancel": {
    usage: `batches cancel <batch_…>                        lines not started end canceled; a worker cancels its runs`,
    async run({ db, args: [id], print }) {
      if (!id?.startsWith("batch_")) throw new UsageError("usage: batches cancel <batch_…>");
      const batch = await findBatchById(db, id);
      if (!batch) throw new UsageError(`no batch ${id}`);
      await markBatchCanceled(db, id);
      print(`${id} is canceling: its lines not started are canceled, its runs are being canceled`, {
        id,
        status: "canceling",
      });
    },
  },
};
