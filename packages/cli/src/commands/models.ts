// models list|set-status|set-queue-cap|set-servers (imports: modelImport.ts).
import { listAllModels } from "@svc/db";
import { changeModel } from "@svc/use-cases";
import { positiveInt, UsageError, type Command } from "../command.js";

/** A model change's refusal in the CLI's words. */
function changed(result: Awaited<ReturnType<typeof changeModel>>, id: string) {
  if (result.kind === "not_found") throw new UsageError(`no model ${id}`);
  if (result.kind === "invalid") throw new UsageError(result.message);
}

export const MODEL_COMMANDS: Record<string, Command> = {
  "models list": {
    usage: `models list                                     every model with status, runner and price`,
    async run({ db, print }) {
      for (const m of await listAllModels(db)) {
        const runner = m.runner.kind;
        print(
          `${m.id}  ${m.status}  ${m.category}  ${runner}  ${m.pricing.tokens_per_unit}/${m.pricing.unit}`,
          {
            id: m.id,
            status: m.status,
            runner,
          },
        );
      }
    },
  },
  "models set-status": {
    usage: `models set-status <model id> <status>           e.g. active, deprecated (only active models run)`,
    async run({ db, by, args: [id, status], print }) {
      if (!id || !status || !/^[a-z_]+$/.test(status))
        throw new UsageError("usage: models set-status <model id> <status>");
      changed(await changeModel(db, by, id, { status }), id);
      print(`${id} is now ${status}`, { id, status });
    },
  },
  "models set-queue-cap": {
    usage: `models set-queue-cap <model id> <n>|none        runs that may wait for the model at once (past it: 429)`,
    async run({ db, by, args: [id, cap], print }) {
      if (!id || !cap) throw new UsageError("usage: models set-queue-cap <model id> <n>|none");
      const maxQueue = cap === "none" ? null : positiveInt(cap, "queue cap");
      changed(await changeModel(db, by, id, { maxQueue }), id);
      print(`${id} queue cap: ${maxQueue ?? "none"}`, { id, max_queue: maxQueue });
    },
  },
  "models set-servers": {
    usage: `models set-servers <model id> <url>… [--concurrency <n>]
                                                  the model servers of a model (never link-local or cloud
                                                  metadata addresses) and the runs each takes at
                                                  once; workers follow at the pool monitor's next pass`,
    flags: ["concurrency"],
    async run({ db, by, values, args: [id, ...servers], print }) {
      if (!id || !servers.length)
        throw new UsageError("usage: models set-servers <model id> <url>… [--concurrency <n>]");
      const concurrency =
        values.concurrency === undefined ? undefined : positiveInt(values.concurrency, "concurrency", 1_000);
      changed(
        await changeModel(db, by, id, { servers, ...(concurrency !== undefined && { concurrency }) }),
        id,
      );
      print(`${id} is served by ${servers.join(" ")}${concurrency ? ` (${concurrency} at once each)` : ""}`, {
        id,
        servers,
        ...(concurrency !== undefined && { concurrency }),
      });
    },
  },
};
