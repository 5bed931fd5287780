// weights list|publish|unpublish: the catalogue's LoRAs, weights an operator publishes for every
// account (an account uploads them through the API or the console; publishing names them for all).
import { listAllWeights } from "@svc/db";
import { publishWeights } from "@svc/use-cases";
import { UsageError, type Command, type CommandContext } from "../command.js";

const publishing =
  (published: boolean): Command["run"] =>
  async ({ db, by, args: [id], print }: CommandContext) => {
    if (!id?.startsWith("wts_"))
      throw new UsageError(`usage: weights ${published ? "" : "un"}publish <wts_…>`);
    const changed = await publishWeights(db, by, id, published);
    if (!changed) throw new UsageError(`no weights ${id}`);
    print(
      `${id} ${published ? "is published: every account's runs may name it" : "is no longer published"}`,
      {
        id,
        published,
      },
    );
  };

export const WEIGHTS_COMMANDS: Record<string, Command> = {
  "weights list": {
    usage: `weights list [--account <acct_…>] [--published]  weights (LoRAs): one account's, or the published ones`,
    flags: ["account"],
    switches: ["published"],
    async run({ db, values, switched, print }) {
      const found = await listAllWeights(db, {
        ...(values.account && { accountId: values.account }),
        published: switched("published"),
      });
      for (const w of found)
        print(
          `${w.id}  ${w.accountId}  ${w.mode}  ${w.name}  ${w.size} bytes  sha256 ${w.sha256.slice(0, 12)}…${w.publishedAt ? "  published" : ""}`,
          {
            id: w.id,
            account_id: w.accountId,
            mode: w.mode,
            name: w.name,
            size: w.size,
            sha256: w.sha256,
            published: w.publishedAt !== null,
          },
        );
    },
  },
  "weights publish": {
    usage: `weights publish <wts_…>                        every account's runs may name these weights (in both modes)`,
    run: publishing(true),
  },
  "weights unpublish": {
    usage: `weights unpublish <wts_…>                      the weights are their owner's alone again`,
    run: publishing(false),
  },
};
