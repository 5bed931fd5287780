// cog upload-url: what Cog servers are started with (--upload-url) so that their files come to the workers.
import { cogUploadUrl } from "@svc/core";
import { UsageError, type Command } from "../command.js";

export const COG_COMMANDS: Record<string, Command> = {
  "cog upload-url": {
    usage: `cog upload-url                                  the --upload-url to start Cog servers with, so that
                                                  their output files are PUT to the workers (needs
                                                  COG_CALLBACK_URL and SECRETS_KEY as the workers have)`,
    async run({ settings, print }) {
      const base = process.env.COG_CALLBACK_URL;
      if (!base) throw new UsageError("COG_CALLBACK_URL (the workers' callback address) is not set");
      if (!settings.secretsKey) throw new UsageError("SECRETS_KEY (the workers') is not set");
      const url = cogUploadUrl(base, settings.secretsKey);
      print(url, { upload_url: url });
    },
  },
};
