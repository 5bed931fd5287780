// pnpm bench:runs [--runs N] [--concurrency C] [--worker-concurrency W]
// Real API and worker processes on a fresh database and queue prefix; the 0-delay image model
// (test/instant, 1 image of 1024x1024 per run). Prints creations/s, completions/s and p50/p99 of
// creation latency and of created -> started. Traffic goes to 127.0.0.1 only, bounded in count.
import { parseArgs } from "node:util";
import { createAccountWithKeys, waitFor } from "../../packages/testkit/dist/index.js";
import { percentile, startService } from "./service.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "32" },
    "worker-concurrency": { type: "string", default: "8" },
    // Start the worker only after every run is created: creation alone, without the worker's CPU.
    "create-first": { type: "boolean", default: false },
  },
});
const RUNS = Number(values.runs);
const CONCURRENCY = Number(values.concurrency);
const pct = percentile;
const ms = (n) => `${n.toFixed(1)} ms`;

const service = await startService({
  workerEnv: { WORKER_CONCURRENCY: values["worker-concurrency"] },
  startWorkerNow: !values["create-first"],
});
const { database } = service;
try {
  const { account, liveKey } = await createAccountWithKeys(database.db, RUNS * 10);

  const latencies = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        next++;
        const t0 = performance.now();
        const res = await fetch(`${service.base}/models/test/instant/run`, {
          method: "POST",
          headers: { Authorization: `Bearer ${liveKey}`, "Content-Type": "application/json" },
          body: JSON.stringify({ input: { prompt: `benchmark run ${next}` } }),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== 201) failed++;
      }
    }),
  );
  const createdSeconds = (performance.now() - started) / 1000;
  if (!service.worker) await service.startWorker();
  await waitFor(
    async () =>
      (await database.db.run.count({ where: { accountId: account.id, status: "COMPLETED" } })) ===
      RUNS - failed,
    {
      timeoutMs: 600_000,
      intervalMs: 200,
      what: "all runs to complete",
    },
  );
  const completedSeconds = (performance.now() - started) / 1000;
  const runs = await database.db.run.findMany({
    where: { accountId: account.id },
    select: { createdAt: true, startedAt: true },
  });
  const queueWait = runs.map((r) => r.startedAt.getTime() - r.createdAt.getTime()).sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  const totals = await database.db.account.findUniqueOrThrow({ where: { id: account.id } });

  console.log(
    `runs: ${RUNS} (client concurrency ${CONCURRENCY}, worker concurrency ${values["worker-concurrency"]}, 1 API + 1 worker process), non-201: ${failed}`,
  );
  console.log(
    `created:   ${(RUNS / createdSeconds).toFixed(0)} runs/s   latency p50 ${ms(pct(latencies, 50))}  p99 ${ms(pct(latencies, 99))}`,
  );
  console.log(
    `completed: ${(RUNS / completedSeconds).toFixed(0)} runs/s   (first request to last completion: ${completedSeconds.toFixed(1)} s)`,
  );
  if (values["create-first"])
    console.log(
      "(--create-first: the worker started after the last creation, so created -> started includes that wait)",
    );
  console.log(`created -> started: p50 ${ms(pct(queueWait, 50))}  p99 ${ms(pct(queueWait, 99))}`);
  console.log(
    `ledger: balance ${totals.balance} (charged ${RUNS * 10 - totals.balance}), reserved ${totals.reserved}`,
  );
} finally {
  await service.stop();
}
