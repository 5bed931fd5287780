// pnpm bench:webhooks [--rate R] [--seconds S] [--burst M]
// Real API and worker processes, a local HTTPS receiver on 127.0.0.1 (certificate made here and
// trusted through WEBHOOK_CA_FILE). Phase 1, open loop: R runs/s of the no-op model (acme/echo) for
// S seconds, each with a webhook_url and a registered endpoint (2 deliveries per run): p50/p99
// from run completion (completed_at) to receipt. Phase 2: a burst of M test deliveries to the
// endpoint: deliveries/s end to end (bounded by this process, which also receives and parses
// every log line). Bounded, loopback only.
import { parseArgs } from "node:util";
import {
  createAccountWithKeys,
  startHttpsReceiver,
  testCertificate,
  waitFor,
} from "../../packages/testkit/dist/index.js";
import { percentile, startService } from "./service.mjs";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "100" },
    seconds: { type: "string", default: "5" },
    burst: { type: "string", default: "2000" },
  },
});
const RATE = Number(values.rate);
const RUNS = RATE * Number(values.seconds);
const BURST = Number(values.burst);
const pct = percentile;

const { caFile } = await testCertificate();
const receiver = await startHttpsReceiver();
const service = await startService({
  workerEnv: {
    WEBHOOK_CA_FILE: caFile,
  },
});
const { database, base: BASE } = service;
const post = async (path, key, body) => {
  const res = await fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
};

try {
  const { account, liveKey } = await createAccountWithKeys(database.db, RUNS * 10);
  const endpoint = (await post("/webhooks", liveKey, { url: receiver.url("/endpoint") })).data;

  // Phase 1: run completion -> receipt, at a steady rate (each run started on its own schedule).
  const t0 = performance.now();
  const creations = [];
  for (let i = 0; i < RUNS; i++) {
    const wait = t0 + (i * 1000) / RATE - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    creations.push(
      post("/models/acme/echo/run", liveKey, {
        input: { prompt: `bench ${i}` },
        webhook_url: receiver.url("/per-run"),
      }),
    );
  }
  await Promise.all(creations);
  await receiver.waitForRequests(RUNS * 2, 600_000);
  const runs = await database.db.run.findMany({
    where: { accountId: account.id },
    select: { id: true, completedAt: true },
  });
  const completedAt = new Map(runs.map((r) => [r.id, r.completedAt.getTime()]));
  const lag = receiver.requests
    .map((q) => q.at - completedAt.get(JSON.parse(q.body).data.run_id))
    .sort((a, b) => a - b);

  // Phase 2: a burst of deliveries.
  const before = receiver.requests.length;
  const started = performance.now();
  for (let i = 0; i < BURST; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, BURST - i) }, () => post(`/webhooks/${endpoint.id}/test`, liveKey)),
    );
  }
  await receiver.waitForRequests(before + BURST, 600_000);
  const seconds = (performance.now() - started) / 1000;
  await waitFor(async () => (await database.db.delivery.count({ where: { status: "pending" } })) === 0, {
    timeoutMs: 60_000,
  });
  const failed = await database.db.delivery.count({ where: { status: "failed" } });

  console.log(
    `phase 1: ${RATE} runs/s for ${values.seconds} s, 2 deliveries each (webhook_url + endpoint), failed deliveries: ${failed}`,
  );
  console.log(
    `  run completion -> receipt: p50 ${pct(lag, 50)} ms  p99 ${pct(lag, 99)} ms  max ${lag.at(-1)} ms`,
  );
  console.log(`phase 2: ${BURST} test deliveries to one endpoint`);
  console.log(
    `  ${(BURST / seconds).toFixed(0)} deliveries/s (first request to last receipt ${seconds.toFixed(1)} s)`,
  );
} finally {
  await receiver.close();
  await service.stop();
}
