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
