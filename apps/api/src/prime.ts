import { activeInputSchemas, primeRunTransitions, sqlPool } from "@svc/db";
import { whenRedisReady } from "@svc/queue";
import type { AppDeps } from "./deps.js";
import { compileInputValidators } from "./runs/inputValidator.js";

/**
 * Makes a new API process ready to answer at full speed before it takes traffic: opens the
 * Postgres connections that run creation uses at once and readies its statements (and a cancel's)
 * on them, readies the runs queue and compiles the models' input validators (the first compilation
 * also compiles JSON Schema's meta-schema). A replica started under load would otherwise pay for
 * them in its first requests: its first run creation took twice as long, and its first second at
 * 400 creations/s had the worst answers of the run (docs/benchmarks.md). Never fails and never
 * holds the start up past `deadlineMs`: what it could not do, requests do.
 */
export async function primeProcess(
  { db, redis, queues, logger }: Pick<AppDeps, "db" | "redis" | "queues" | "logger">,
  connections: number,
  deadlineMs: number,
): Promise<void> {
  const work = (async () => {
    await primeRunTransitions(sqlPool(db), connections, ["insert", "settle"]);
    const [validators] = await Promise.all([
      activeInputSchemas(db).then(compileInputValidators),
      // The queue's first use checks the server (its version): once Redis is there.
      whenRedisReady(redis, deadlineMs).then(async (ready) => {
        if (ready) await queues.runs().waitUntilReady();
      }),
    ]);
    logger.debug("process primed", { connections, validators });
  })().catch((error: unknown) =>
    logger.warn("priming the process failed; its first requests will do it", { error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger.warn("priming the process is slow; serving meanwhile", { deadline_ms: deadlineMs });
      resolve();
    }, deadlineMs);
  });
  await Promise.race([work, late]);
  clearTimeout(timer);
}
