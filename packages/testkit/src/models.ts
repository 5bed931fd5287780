import { comfyInputSchema, comfyUIRunnerSchema } from "@svc/core";
import { loadCatalogue, seedCatalogue, type Db } from "@svc/db";

/**
 * The real catalogue plus image models with known timing for tests and benchmarks:
 * test/instant (no delay), test/slow (3 s per image), test/timeout (execution timeout 300 ms).
 * All cost 5 tokens per image, like the high-quality model.
 */
export async function seedTestModels(db: Db): Promise<void> {
  const catalogue = await loadCatalogue();
  const hq = catalogue.find((m) => m.id === "acme/pixel-hq")!;
  const variant = (id: string, delay: number, timeout = 600_000) => ({
    ...hq,
    id,
    name: id,
    highlighted: false,
    runner: { kind: "builtin" as const, generator: "image" as const, delay_ms: delay },
    execution_timeout_ms: timeout,
  });
  await seedCatalogue(db, [
    ...catalogue,
    variant("test/instant", 0),
    variant("test/slow", 3_000),
    variant("test/steps", 250),
    // The echo generator after a 250 ms wait: a run that takes time but no CPU (benchmarks).
    {
      ...variant("test/wait", 250),
      runner: { kind: "builtin" as const, generator: "echo" as const, delay_ms: 250 },
      // Like acme/echo, it does not make the images its category promises.
      listed: false,
    },
    variant("test/timeout", 5_000, 300),
  ]);
}

/**
 * A model served by Cog servers (fake ones here), with the public image interface of acme/pixel-hq
 * (5 tokens per image): `runner` settings and entry fields override the defaults.
 */
export async function seedCogModel(
  db: Db,
  id: string,
  servers: readonly string[],
  extra: { runner?: Record<string, unknown> } & Record<string, unknown> = {},
): Promise<void> {
  const [hq] = (await loadCatalogue()).filter((m) => m.id === "acme/pixel-hq");
  const { runner, ...fields } = extra;
  await seedCatalogue(db, [
    {
      ...hq!,
      id,
      name: id,
      highlighted: false,
      runner: {
        kind: "cog",
        servers: [...servers],
        output: "image",
        concurrency: 1,
        dispatch_attempts: 3,
        health_interval_ms: 100,
        request_timeout_ms: 2_000,
        input_map: { rename: {}, expand: {} },
        ...runner,
      } as CatalogueRunner,
      ...fields,
    },
  ]);
}

type CatalogueRunner = Parameters<typeof seedCatalogue>[1][number]["runner"];

/** A cog-flux style model's input schema: a prompt and up to `most` LoRAs (weights and scale). */
export const loraModelInput = (most = 2) => ({
  type: "object",
  properties: {
    prompt: { type: "string", minLength: 1 },
    loras: {
      type: "array",
      maxItems: most,
      default: [],
      items: {
        type: "object",
        properties: {
          weights: { type: "string", minLength: 1 },
          scale: { type: "number", minimum: -2, maximum: 2, default: 1 },
        },
        required: ["weights"],
        additionalProperties: false,
      },
    },
  },
  required: ["prompt"],
  additionalProperties: false,
});

/** The catalogue model whose input schema and pricing an OpenAI-style model of each API takes. */
const LIKE = { images: "acme/pixel-hq", videos: "acme/motion/clip", speech: "acme/voice/tone" } as const;

/** A model served by OpenAI-style media servers (runner kind openai), like the catalogue's of its kind. */
export async function seedOpenAIModel(
  db: Db,
  id: string,
  servers: readonly string[],
  runner: { api: keyof typeof LIKE; model: string; api_key_enc?: string } & Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const like = (await loadCatalogue()).find((m) => m.id === LIKE[runner.api])!;
  await seedCatalogue(db, [
    {
      ...like,
      id,
      name: id,
      highlighted: false,
      runner: {
        kind: "openai",
        servers: [...servers],
        concurrency: 1,
        health_interval_ms: 100,
        request_timeout_ms: 10_000,
        poll_interval_ms: 50,
        ...runner,
      } as CatalogueRunner,
      ...extra,
    },
  ]);
}

/** A model served by ComfyUI servers: a workflow and its bindings; its input schema from them. */
export async function seedComfyModel(
  db: Db,
  id: string,
  servers: readonly string[],
  graph: {
    workflow: Record<string, unknown>;
    bindings: Record<string, unknown>[];
    loras?: Record<string, unknown>[];
  },
  extra: Record<string, unknown> = {},
): Promise<void> {
  const like = (await loadCatalogue()).find((m) => m.id === "acme/pixel-hq")!;
  const runner = comfyUIRunnerSchema.parse({
    kind: "comfyui",
    servers: [...servers],
    output: "image",
    health_interval_ms: 100,
    request_timeout_ms: 5_000,
    ...graph,
  });
  await seedCatalogue(db, [
    {
      ...like,
      id,
      name: id,
      highlighted: false,
      runner,
      input_schema: comfyInputSchema(
        runner.workflow,
        runner.bindings,
        runner.loras,
      ) as typeof like.input_schema,
      ...extra,
    },
  ]);
}
