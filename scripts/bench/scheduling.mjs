// pnpm bench:scheduling [--runs N] [--delay MS] [--servers N] [--kind cog|openai|comfyui]
// Scheduling onto model servers, with the built API and two worker processes on 127.0.0.1 and
// protocol-faithful fake model servers of the kind asked (Cog: one prediction at a time, 409 when
// busy; OpenAI-style image servers: one request at a time, 429 when busy; ComfyUI: one prompt at
// a time from its own queue, the sampler's steps taking --delay in all):
// - a slow model on --servers servers (--delay ms a prediction); three accounts each burst --runs
//   runs at it, 300 ms apart; a fast model (20 ms) on a server of its own gets a run every 200 ms
//   meanwhile;
// - prints the servers' idle gap between predictions while runs wait (p50, max) and the workers'
//   part of it (slot released -> next prediction accepted, their histogram), each account's
//   share of the starts while all three wait (Jain's fairness index), the dispatch latency (slot
//   leased -> run started on a worker, from the workers' histogram), the fast model's created ->
//   started while the slow one has a backlog, and how far each queued run's told position and
//   estimated start were from what happened.
import { parseArgs } from "node:util";
import {
  createAccountWithKeys,
  freePort,
  seedCogModel,
  seedOpenAIModel,
  seedComfyModel,
  COMFY_TXT2IMG,
  startFakeComfyUI,
  startBalancer,
  startFakeCog,
  startFakeOpenAIServer,
  startService,
} from "../../packages/testkit/dist/index.js";
import { jainIndex } from "../../packages/core/dist/index.js";
import { percentile } from "./service.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "30" },
    delay: { type: "string", default: "300" },
    servers: { type: "string", default: "2" },
    kind: { type: "string", default: "cog" },
  },
});
const KIND = values.kind;
if (!["cog", "openai", "comfyui"].includes(KIND)) throw new Error("--kind is cog, openai or comfyui");
const STEPS = 4;
const RUNS = Number(values.runs);
const DELAY = Number(values.delay);
const SERVERS = Number(values.servers);
const ms = (x) => `${x.toFixed(1)} ms`;
const sleep = (t) => new Promise((r) => setTimeout(r, t));

const balancer = await startBalancer();
const service = await startService({ RATE_LIMIT_ENABLED: "false" });
// Each run's prompt is its own (p-<n>): an OpenAI-style server knows a request by it, not by id.
let prompts = 0;
const runOfPrompt = new Map();
const startServer = (delayMs) =>
  KIND === "cog"
    ? startFakeCog({ behaviour: { delayMs, imageSide: 16 } })
    : KIND === "openai"
      ? startFakeOpenAIServer({ model: "bench", unitMs: delayMs, imageSide: 16 })
      : startFakeComfyUI({ stepMs: delayMs / STEPS, imageSide: 16 });
const slow = await Promise.all(Array.from({ length: SERVERS }, () => startServer(DELAY)));
const fast = await startServer(20);
const seedModel = (id, servers) =>
  KIND === "cog"
    ? seedCogModel(
        service.database.db,
        id,
        servers.map((s) => s.url),
        { runner: { health_interval_ms: 1_000, request_timeout_ms: 5_000 } },
      )
    : KIND === "openai"
      ? seedOpenAIModel(
          service.database.db,
          id,
          servers.map((s) => s.url),
          { api: "images", model: "bench", health_interval_ms: 1_000, request_timeout_ms: 5_000 },
        )
      : seedComfyModel(
          service.database.db,
          id,
          servers.map((s) => s.url),
          {
            ...COMFY_TXT2IMG,
            workflow: {
              ...COMFY_TXT2IMG.workflow,
              3: {
                ...COMFY_TXT2IMG.workflow["3"],
                inputs: { ...COMFY_TXT2IMG.workflow["3"].inputs, steps: STEPS },
              },
            },
          },
        );
await seedModel("bench/slow", slow);
await seedModel("bench/fast", [fast]);
/** A server's work by run id: Cog's predictions, ComfyUI's prompts (by client id), or an OpenAI-style server's requests by prompt. */
const predictionsOf = (server) =>
  KIND === "cog"
    ? server.predictions
    : KIND === "comfyui"
      ? new Map(server.prompts.map((p) => [p.extraData.svc_run_id, { ...p, id: p.extraData.svc_run_id }]))
      : new Map(
          [...server.work].flatMap(([prompt, w]) =>
            runOfPrompt.has(prompt) ? [[runOfPrompt.get(prompt), { ...w, id: runOfPrompt.get(prompt) }]] : [],
          ),
        );
/** Gaps between one piece of work's end and the next one's start on a server (one at a time). */
const idleGaps = (server, among) => {
  const chosen = [...predictionsOf(server).values()].filter((p) => among.has(p.id));
  const starts = chosen.map((p) => p.startedAt).sort((a, b) => a - b);
  const ends = chosen.flatMap((p) => (p.endedAt === undefined ? [] : [p.endedAt])).sort((a, b) => a - b);
  const gaps = [];
  for (let k = 1; k < starts.length && k - 1 < ends.length; k++)
    gaps.push(Math.max(0, starts[k] - ends[k - 1]));
  return gaps;
};
const api = await service.startApi();
const metricsPorts = [];
for (let i = 0; i < 2; i++) {
  const port = await freePort();
  const metricsPort = await freePort();
  metricsPorts.push(metricsPort);
  await service.startWorker({
    COG_CALLBACK_URL: balancer.url,
    COG_CALLBACK_PORT: String(port),
    COG_CALLBACK_HOST: "127.0.0.1",
    METRICS_PORT: String(metricsPort),
    METRICS_HOST: "127.0.0.1",
  });
  balancer.targets.push(port);
}
const accounts = [];
for (const name of ["A", "B", "C"]) {
  const { account, liveKey } = await createAccountWithKeys(service.database.db, 1_000_000);
  accounts.push({ name, id: account.id, key: liveKey });
}
const call = async (key, method, path, body) => {
  const res = await fetch(`${api.base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()).data;
};
const create = async (key, modelId) => {
  const prompt = `p-${++prompts}`;
  const run = await call(key, "POST", `/models/${modelId}/run`, { input: { prompt } });
  runOfPrompt.set(prompt, run.run_id);
  return run;
};

// Warm-up: the model's run times exist before the burst (the estimates need them).
await Promise.all(Array.from({ length: 2 * SERVERS }, () => create(accounts[0].key, "bench/slow")));
await sleep(3 * DELAY + 1_500);

const owner = new Map();
const burst = [];
for (const [i, a] of accounts.entries()) {
  if (i) await sleep(300);
  burst.push(
    ...(await Promise.all(
      Array.from({ length: RUNS }, async () => {
        const run = await create(a.key, "bench/slow");
        owner.set(run.run_id, a.name);
        return run.run_id;
      }),
    )),
  );
}
// Every queued run's place and estimate, told once all three accounts wait. Read one at a time,
// each against the starts after its own answer: read all at once, the last answers came hundreds
// of ms after the first, and the starts meanwhile counted as errors of the places told late.
const toldAt = Date.now();
const keyOf = (id) => accounts.find((a) => a.name === owner.get(id)).key;
const told = new Map();
for (const id of burst) {
  const view = await call(keyOf(id), "GET", `/runs/${id}`);
  told.set(id, { view, at: Date.now() });
}
// The fast model meanwhile.
const fastRuns = [];
const fastLoop = (async () => {
  while (fastRuns.length < 10) {
    fastRuns.push((await create(accounts[2].key, "bench/fast")).run_id);
    await sleep(200);
  }
})();
// Until the burst has run.
for (;;) {
  const done = [...slow].reduce(
    (n, s) => n + [...predictionsOf(s).values()].filter((p) => burst.includes(p.id) && p.endedAt).length,
    0,
  );
  if (done >= burst.length) break;
  await sleep(200);
}
await fastLoop;

const predictions = slow
  .flatMap((s) => [...predictionsOf(s).values()])
  .filter((p) => burst.includes(p.id))
  .sort((a, b) => a.startedAt - b.startedAt);
// Fairness: the starts while all three accounts still had runs waiting.
const lastStart = Object.fromEntries(accounts.map((a) => [a.name, 0]));
for (const p of predictions) lastStart[owner.get(p.id)] = p.startedAt;
const windowEnd = Math.min(...Object.values(lastStart));
const inWindow = predictions.filter((p) => p.startedAt >= toldAt && p.startedAt <= windowEnd);
const shares = accounts.map((a) => inWindow.filter((p) => owner.get(p.id) === a.name).length);
// Place and estimate errors, against the starts that followed.
const placeErrors = [];
const estimateErrors = [];
for (const p of predictions) {
  const { view, at } = told.get(p.id) ?? {};
  if (view?.status !== "QUEUED" || view.queue_position == null) continue;
  const before = predictions.filter((q) => q.startedAt > at && q.startedAt < p.startedAt).length;
  placeErrors.push(Math.abs(view.queue_position - 1 - before));
  if (view.estimated_start_at)
    estimateErrors.push(Math.abs(Date.parse(view.estimated_start_at) - p.startedAt));
}
const burstIds = new Set(burst);
const gaps = slow.flatMap((s) => idleGaps(s, burstIds)).sort((a, b) => a - b);
const fastWaits = [];
for (const id of fastRuns) {
  const p = predictionsOf(fast).get(id);
  const view = await call(accounts[2].key, "GET", `/runs/${id}`);
  if (p) fastWaits.push(p.startedAt - Date.parse(view.created_at));
}
fastWaits.sort((a, b) => a - b);
// Dispatch latency and slot handover: the workers' histograms (mean over both workers).
const scraped = await Promise.all(
  metricsPorts.map(async (port) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text()),
);
const meanMs = (histogram) => {
  let sum = 0;
  let count = 0;
  for (const line of scraped.join("\n").split("\n")) {
    if (line.startsWith(`${histogram}_sum{model="bench/slow"}`)) sum += Number(line.split(" ").pop());
    if (line.startsWith(`${histogram}_count{model="bench/slow"}`)) count += Number(line.split(" ").pop());
  }
  return count ? (sum / count) * 1000 : null;
};
const sortedPlace = [...placeErrors].sort((a, b) => a - b);
const sortedEstimate = [...estimateErrors].sort((a, b) => a - b);
const conflicts = slow.reduce((n, s) => n + (s.conflicts ?? 0), 0);
const results = {
  runs: burst.length,
  servers: SERVERS,
  prediction_ms: DELAY,
  idle_gap_p50_ms: percentile(gaps, 50),
  idle_gap_max_ms: gaps.at(-1),
  jain_index: jainIndex(shares),
  shares: Object.fromEntries(accounts.map((a, i) => [a.name, shares[i]])),
  dispatch_latency_mean_ms: meanMs("svc_dispatch_latency_seconds"),
  slot_handover_mean_ms: meanMs("svc_slot_handover_seconds"),
  fast_model_created_to_started_p50_ms: percentile(fastWaits, 50),
  fast_model_created_to_started_max_ms: fastWaits.at(-1),
  position_error_mean: placeErrors.reduce((a, b) => a + b, 0) / Math.max(1, placeErrors.length),
  position_error_max: sortedPlace.at(-1),
  estimate_error_p50_ms: percentile(sortedEstimate, 50),
  estimate_error_p90_ms: percentile(sortedEstimate, 90),
  conflicts_409: conflicts,
};
console.log(
  `${burst.length} runs of a ${DELAY} ms model on ${SERVERS} ${{ cog: "Cog", openai: "OpenAI-style", comfyui: "ComfyUI" }[KIND]} servers, 3 accounts bursting, 2 workers`,
);
console.log(
  `server idle gap while runs wait: p50 ${ms(results.idle_gap_p50_ms)}, max ${ms(results.idle_gap_max_ms)} (n=${gaps.length})`,
);
console.log(
  `fairness while all three wait: Jain ${results.jain_index.toFixed(3)}, starts ${JSON.stringify(results.shares)}`,
);
const orNa = (x) => (x === null ? "n/a" : ms(x));
console.log(
  `slot handover (released on a worker -> next prediction accepted): mean ${orNa(results.slot_handover_mean_ms)}; the rest of the gap is the completed webhook's way to a worker`,
);
console.log(`dispatch latency (slot leased -> run started): mean ${orNa(results.dispatch_latency_mean_ms)}`);
console.log(
  `fast model during the backlog: created -> started p50 ${ms(results.fast_model_created_to_started_p50_ms)}, max ${ms(results.fast_model_created_to_started_max_ms)}`,
);
console.log(
  `told position vs runs that started before: mean error ${results.position_error_mean.toFixed(2)}, max ${results.position_error_max}; estimate error p50 ${ms(results.estimate_error_p50_ms ?? 0)}, p90 ${ms(results.estimate_error_p90_ms ?? 0)}`,
);
// A prompt taken at once starts a ms or two after its POST; one that waited behind another, at
// least that one's whole run (hundreds of ms) later.
console.log(
  KIND === "comfyui"
    ? `prompts waiting in ComfyUI's own queues: ${slow.reduce((n, s) => n + s.prompts.filter((p) => p.startedAt - (p.queuedAt ?? p.startedAt) > 10).length, 0)}`
    : `${KIND === "cog" ? "409s" : "429s"} from busy servers: ${conflicts}`,
);
console.log(JSON.stringify(results));
await Promise.all([...slow, fast].map((s) => s.close()));
await service.stop();
await balancer.close();
