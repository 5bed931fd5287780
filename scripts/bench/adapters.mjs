// pnpm bench:adapters [--runs N] [--concurrency N]
// What the Replicate and OpenAI adapters add to a run, against our own route, on the same run:
// 1. creation: acme/echo made through POST /api/v1/models/{id}/run and Replicate's
//    POST /replicate/v1/models/{id}/predictions (answered at once);
// 2. a run waited for: test/instant (one 1024x1024 PNG) through our route with Prefer: wait,
//    Replicate's with Prefer: wait, and OpenAI's images.generate (response_format url).
// Each style runs in turns (rounds of N/3, styles interleaved, so that drift falls on all alike),
// N runs per style, --concurrency at a time; reported: the API process's CPU per run (user + sys,
// from /proc), its ratio to our route's, and latency p50.
import { parseArgs } from "node:util";
import { createAccountWithKeys } from "../../packages/testkit/dist/index.js";
import { percentile, startService } from "./service.mjs";
import { processCpu } from "./work.mjs";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "600" }, concurrency: { type: "string", default: "8" } },
});
const RUNS = Number(values.runs);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = 3;

const cpuMs = (pid) => {
  const { user, sys } = processCpu(pid);
  return user + sys;
};

const service = await startService();
const origin = service.base.replace(/\/api\/v1$/, "");
try {
  const { liveKey } = await createAccountWithKeys(service.database.db, 100_000_000);
  const apiPid = service.api.child.pid;
  const json = { authorization: `Bearer ${liveKey}`, "content-type": "application/json" };
  const post = async (path, body, headers = {}) => {
    const res = await fetch(`${origin}${path}`, {
      method: "POST",
      headers: { ...json, ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    return text;
  };
  const styles = {
    creation: {
      ours: (i) => post("/api/v1/models/acme/echo/run", { input: { prompt: `bench ${i}` } }),
      replicate: (i) =>
        post("/replicate/v1/models/acme/echo/predictions", { input: { prompt: `bench ${i}` } }),
    },
    "waited run": {
      ours: (i) =>
        post(
          "/api/v1/models/test/instant/run",
          { input: { prompt: `bench ${i}`, image_size: "square_hd" } },
          { prefer: "wait" },
        ),
      replicate: (i) =>
        post(
          "/replicate/v1/models/test/instant/predictions",
          { input: { prompt: `bench ${i}`, image_size: "square_hd" } },
          { prefer: "wait" },
        ),
      openai: (i) =>
        post("/openai/v1/images/generations", {
          model: "test/instant",
          prompt: `bench ${i}`,
          size: "1024x1024",
        }),
    },
  };

  /** `count` calls of `call`, CONCURRENCY at a time: the API's CPU they took, and their latencies. */
  const drive = async (call, count, offset) => {
    const latencies = [];
    let next = 0;
    const before = cpuMs(apiPid);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          const i = offset + next++;
          const t = performance.now();
          await call(i);
          latencies.push(performance.now() - t);
        }
      }),
    );
    return { cpu: cpuMs(apiPid) - before, latencies };
  };

  const lines = [];
  for (const [phase, calls] of Object.entries(styles)) {
    // Warm-up: each style's routes, validators and statements, before anything is measured.
    for (const call of Object.values(calls)) await drive(call, 40, 0);
    const totals = Object.fromEntries(Object.keys(calls).map((s) => [s, { cpu: 0, latencies: [] }]));
    for (let round = 0; round < ROUNDS; round++)
      for (const [style, call] of Object.entries(calls)) {
        const { cpu, latencies } = await drive(call, Math.floor(RUNS / ROUNDS), 1_000 + round * RUNS);
        totals[style].cpu += cpu;
        totals[style].latencies.push(...latencies);
      }
    const perRun = (s) => totals[s].cpu / totals[s].latencies.length;
    for (const style of Object.keys(calls)) {
      const sorted = totals[style].latencies.sort((a, b) => a - b);
      const ratio =
        style === "ours" ? "" : ` (${((perRun(style) / perRun("ours") - 1) * 100).toFixed(1)}% vs ours)`;
      lines.push(
        `${phase.padEnd(10)} ${style.padEnd(9)} API CPU ${perRun(style).toFixed(2)} ms/run${ratio}, p50 ${percentile(sorted, 50).toFixed(1)} ms, ${sorted.length} runs`,
      );
    }
  }
  console.log(lines.join("\n"));
} finally {
  await service.stop();
}
