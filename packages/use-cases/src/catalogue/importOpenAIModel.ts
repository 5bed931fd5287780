// Importing a model served by OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI): the server
// must list the model; its key is sealed with SECRETS_KEY. As with every kind, the server's answers
// are never echoed: "not reachable", or "does not serve it".
import { z } from "zod";
import {
  modelServerUrl,
  OPENAI_SERVER_APIS,
  OPENAI_SERVER_OUTPUT,
  OPENAI_SERVER_PRICING,
  openAIServerInputSchema,
  sealSecret,
} from "@svc/core";
import type { Importer } from "./importer.js";
import { getFromServer, ImportRefused, serverBase } from "./serverImport.js";

const options = z.strictObject({
  server_url: modelServerUrl.meta({ title: "Server URL", examples: ["http://gpu-1:8091"] }),
  model: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .meta({
      title: "Its model name",
      description: "The model's id at /v1/models",
      examples: ["Qwen/Qwen-Image"],
    }),
  api: z.enum(OPENAI_SERVER_APIS).meta({ title: "API", description: "images, videos or speech" }),
  api_key: z.string().min(1).max(500).optional().meta({
    title: "API key",
    description: "The servers' key (stored sealed, never shown again)",
    writeOnly: true,
  }),
});

export const openAIImporter: Importer<typeof options> = {
  kind: "openai",
  path: "import-openai",
  summary: "Import a model served by OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI)",
  description:
    "The server must list the model at /v1/models (with the key, if one is given); its answers are not echoed. The model takes its API's public input (images: prompt, image_size, num_images, seed; videos: prompt, duration_seconds, video_size, first_frame; speech: prompt, voice, format) and is priced per image, second of video or speech. The key is stored sealed with SECRETS_KEY and never shown again. An id that exists already is 409 MODEL_EXISTS unless `replace` is true.",
  options,
  example: {
    server_url: "http://gpu-1:8091",
    model: "Qwen/Qwen-Image",
    api: "images",
    id: "you/qwen-image",
    tokens_per_unit: 4,
    reason: "Qwen-Image on the new GPUs",
  },
  secrets: ["api_key"],
  async entry(o, { secretsKey }) {
    const base = (await serverBase(o.server_url)).replace(/\/v1$/, "");
    if (o.api_key && !secretsKey)
      throw new ImportRefused("invalid", "SECRETS_KEY is needed to store the model's API key sealed.");
    if (!(await listServerModels(base, o.api_key)).includes(o.model))
      throw new ImportRefused(
        "not_served",
        `The server at ${base} does not serve ${o.model} (per its /v1/models).`,
      );
    return {
      category: OPENAI_SERVER_OUTPUT[o.api],
      pricing: { ...OPENAI_SERVER_PRICING[o.api], tokens_per_unit: o.tokens_per_unit },
      runner: {
        kind: "openai",
        servers: [base],
        model: o.model,
        api: o.api,
        ...(o.api_key && secretsKey && { api_key_enc: sealSecret(secretsKey, o.api_key) }),
      },
      input_schema: openAIServerInputSchema(o.api),
    };
  },
};

/** GET /v1/models (serverImport's guarded request); "not reachable" for anything but a model list. */
async function listServerModels(base: string, apiKey?: string): Promise<string[]> {
  const answer = await getFromServer(
    `${base}/v1/models`,
    apiKey ? { authorization: `Bearer ${apiKey}` } : {},
  );
  let body: unknown;
  try {
    if (answer?.status !== 200) throw new Error(String(answer?.status));
    body = JSON.parse(answer.body);
  } catch {
    throw new ImportRefused("unreachable", `The server at ${base} could not be reached, or refused the key.`);
  }
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.map((m) => String((m as { id?: unknown })?.id)) : [];
}
