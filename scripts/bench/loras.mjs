// pnpm bench:loras [--runs N] [--servers N] [--delay MS] [--weights N] [--cache N] [--wait MS]
// Warm routing of runs with LoRAs (personal weights), the same workload with routing off and on in
// one run, each on a fresh service (the built API and two workers on 127.0.0.1) and fresh fake Cog
// servers (one prediction at a time, 409 when busy) that load LoRAs as cog-flux does: a download
// per URL into a cache of --cache, loading costing 2x a prediction (--delay ms) for a file of the
// bench's size. --weights LoRAs (real safetensors, uploaded through the API) belong to three
// accounts in turn; each run names one, drawn with Zipf (s = 1) popularity from one seeded
// sequence (both phases get the same runs in the same order), all created at once.
// Prints for each phase: runs/s (first creation to last end), the servers' own hit rate (a LoRA
// found loaded) and the scheduler's, p50/p95 time to start (created -> started), Jain's index of
// the accounts' starts while all three had runs waiting, and the longest a run was passed over
// for warmer ones (against --wait, the bound).
import { parseArgs } from "node:util";
import {
  createAccountWithKeys,
  freePort,
  loraModelInput,
  seedCogModel,
  startBalancer,
  startFakeCog,
  startService,
} from "../../packages/testkit/dist/index.js";
import { jainIndex, writeSafetensors } from "../../packages/core/dist/index.js";
import { percentile } from "./service.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "2400" },
    servers: { type: "string", default: "8" },
    delay: { type: "string", default: "50" },
    weights: { type: "string", default: "60" },
    cache: { type: "string", default: "8" },
    wait: { type: "string", default: "2000" },
  },
});
const [RUNS, SERVERS, DELAY, WEIGHTS, CACHE, WAIT] = [
  values.runs,
  values.servers,
  values.delay,
  values.weights,
  values.cache,
  values.wait,
].map(Number);
const sleep = (t) => new Promise((r) => setTimeout(r, t));
/** Every LoRA is 256 KiB (rank 4 over 8,192 features); loading one costs 2 x --delay. */
const LORA_BYTES = 2 * 4 * 8_192 * 4;
const MS_PER_MIB = (2 * DELAY * 2 ** 20) / LORA_BYTES;

/** A seeded sequence (mulberry32): both phases draw the same runs. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
/** Zipf (s = 1) over ranks 0..n-1. */
function zipf(n, next) {
  const cumulative = [];
  let sum = 0;
  for (let k = 1; k <= n; k++) cumulative.push((sum += 1 / k));
  return () => {
    const u = next() * sum;
    return cumulative.findIndex((c) => c >= u);
  };
}
const draw = zipf(WEIGHTS, random(60));
const workload = Array.from({ length: RUNS }, () => draw());

function loraFile(n) {
  const data = (len) => {
    const f = new Float32Array(len);
    f[0] = n; // every file its own bytes, so its own sha256 and URL
    return new Uint8Array(f.buffer);
  };
  return writeSafetensors([
    { name: "unet.0.lora_down.weight", dtype: "F32", shape: [4, 8_192], data: data(4 * 8_192) },
    { name: "unet.0.lora_up.weight", dtype: "F32", shape: [8_192, 4], data: data(8_192 * 4) },
  ]);
}

async function phase(routing) {
  const balancer = await startBalancer();
  const service = await startService({
    RATE_LIMIT_ENABLED: "false",
    DATABASE_POOL_SIZE: "20",
    WEIGHTS_ROUTING_WAIT_MS: routing ? String(WAIT) : "-1",
  });
  const servers = await Promise.all(
    Array.from({ length: SERVERS }, () =>
      startFakeCog({
        behaviour: {
          delayMs: DELAY,
          imageSide: 16,
          loraFields: ["lora_weights"],
          loras: { size: CACHE, msPerMiB: MS_PER_MIB },
        },
      }),
    ),
  );
  await seedCogModel(
    service.database.db,
    "bench/lora",
    servers.map((s) => s.url),
    {
      input_schema: loraModelInput(1),
      runner: {
        health_interval_ms: 1_000,
        request_timeout_ms: 5_000,
        loras: [{ url: "lora_weights", scale: "lora_scale" }],
        lora_cache: CACHE,
      },
    },
  );
  const api = await service.startApi();
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    await service.startWorker({
      COG_CALLBACK_URL: balancer.url,
      COG_CALLBACK_PORT: String(port),
      COG_CALLBACK_HOST: "127.0.0.1",
    });
    balancer.targets.push(port);
  }
  const accounts = [];
  for (let i = 0; i < 3; i++) {
    const { account, liveKey } = await createAccountWithKeys(service.database.db, 100_000_000);
    accounts.push({ id: account.id, key: liveKey });
  }
  const call = async (key, path, init = {}) => {
    const res = await fetch(`${api.base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...init.headers },
    });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()).data;
  };
  // Weights n belongs to account n % 3.
  const weights = [];
  for (let n = 0; n < WEIGHTS; n++) {
    const form = new FormData();
    form.set("file", new Blob([loraFile(n)]), `lora-${n}.safetensors`);
    weights.push((await call(accounts[n % 3].key, "/weights", { method: "POST", body: form })).id);
  }
  // Every server healthy before the runs come.
  for (;;) {
    const res = await fetch(`${api.base}/api/v1/models/bench/lora`, {
      headers: { authorization: `Bearer ${accounts[0].key}` },
    });
    if (res.ok) break;
    await sleep(100);
  }
  await sleep(2_500);

  const started = Date.now();
  const runIds = new Array(RUNS);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < RUNS) {
        const i = next++;
        const n = workload[i];
        const run = await call(accounts[n % 3].key, "/models/bench/lora/run", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: { prompt: `p-${i}`, loras: [{ weights: weights[n], scale: 0.8 }] } }),
        });
        runIds[i] = run.run_id;
      }
    }),
  );
  const db = service.database.db;
  for (;;) {
    const ended = await db.run.count({
      where: { modelId: "bench/lora", status: { in: ["COMPLETED", "FAILED"] } },
    });
    if (ended >= RUNS) break;
    await sleep(200);
  }
  const rows = await db.run.findMany({
    where: { modelId: "bench/lora" },
    select: { accountId: true, status: true, createdAt: true, startedAt: true, completedAt: true },
  });
  const ends = rows.map((r) => r.completedAt?.getTime() ?? 0);
  const seconds = (Math.max(...ends) - started) / 1000;
  const toStart = rows.map((r) => r.startedAt.getTime() - r.createdAt.getTime()).sort((a, b) => a - b);
  // Jain's index over the starts while every account still had runs waiting.
  const byStart = [...rows].sort((a, b) => a.startedAt - b.startedAt);
  const lastStart = new Map(byStart.map((r) => [r.accountId, r.startedAt.getTime()]));
  const allWaitUntil = Math.min(...lastStart.values());
  const shares = accounts.map(
    (a) => byStart.filter((r) => r.accountId === a.id && r.startedAt.getTime() < allWaitUntil).length,
  );
  const loads = servers.flatMap((s) => s.loras);
  const { servers: warm, maxPassedMs } = await fetchWarm(service);
  const figures = {
    routing: routing ? "on" : "off",
    runs: rows.length,
    failed: rows.filter((r) => r.status !== "COMPLETED").length,
    runsPerSecond: rows.length / seconds,
    hitRate: loads.filter((l) => l.hit).length / loads.length,
    schedulerHitRate:
      warm.reduce((n, w) => n + w.hits, 0) /
      Math.max(
        1,
        warm.reduce((n, w) => n + w.hits + w.misses, 0),
      ),
    startP50: percentile(toStart, 50),
    startP95: percentile(toStart, 95),
    jain: jainIndex(shares),
    shares,
    maxPassedMs,
  };
  await Promise.all(servers.map((s) => s.close()));
  await service.stop();
  await balancer.close();
  return figures;
}

/** The scheduler's own figures for the pool (a Redis read through the queue package). */
async function fetchWarm(service) {
  const { createRedis, redisScheduler } = await import("../../packages/queue/dist/index.js");
  const redis = createRedis(service.env.REDIS_URL, "worker");
  try {
    const scheduler = redisScheduler(redis, service.prefix, { leaseMs: 60_000, defaultLimit: 1 });
    return await scheduler.warmStats("bench/lora");
  } finally {
    redis.disconnect();
  }
}

const off = await phase(false);
const on = await phase(true);
const row = (f) =>
  `| ${f.routing} | ${f.runs} (${f.failed} failed) | ${f.runsPerSecond.toFixed(1)} | ${f.hitRate.toFixed(3)} (scheduler ${f.schedulerHitRate.toFixed(3)}) | ${f.startP50} / ${f.startP95} ms | ${f.jain.toFixed(3)} [${f.shares.join(", ")}] | ${f.maxPassedMs} ms |`;
console.log(
  `\n${RUNS} runs, ${SERVERS} servers of ${DELAY} ms, ${WEIGHTS} LoRAs (Zipf s=1, 3 accounts), a cache of ${CACHE} per server, loading 2x a prediction, bound ${WAIT} ms\n`,
);
console.log(
  "| routing | runs | runs/s | hit rate (servers') | time to start p50 / p95 | Jain (starts while all wait) | longest passed over |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
console.log(row(off));
console.log(row(on));
console.log(`\nthroughput on / off: ${(on.runsPerSecond / off.runsPerSecond).toFixed(2)}x`);
process.exit(0);
