// pnpm bench:openloop [--rate R] [--seconds S] [--keyed]
// A paced open loop: R run creations/s of the no-op model (acme/echo), each sent at its own
// scheduled time (not in per-second bursts, as autocannon's --overallRate does), against the
// real API and worker processes. Prints creation latency, created -> started and -> completed
// from the database, and both processes' peak RSS. Rate limits are on (in the path, never hit).
// --keyed gives every creation an Idempotency-Key of its own, as an SDK that retries does.
// Then the work a run cost each process after the first second (work.mjs): CPU of the API, the
// worker, Postgres and Redis, transactions and Redis commands. Loopback only, bounded in time.
import { Agent, request } from "node:http";
import { parseArgs } from "node:util";
import { createRedis } from "../../packages/queue/dist/index.js";
import { createAccountWithKeys, TEST_REDIS_URL } from "../../packages/testkit/dist/index.js";
import { percentile, startService } from "./service.mjs";
import { rssMb, workMeter } from "./work.mjs";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    keyed: { type: "boolean", default: false },
  },
});
const RATE = Number(values.rate);
const TOTAL = RATE * Number(values.seconds);

const service = await startService();
const { database } = service;
const redis = createRedis(TEST_REDIS_URL, "api");
try {
  const meter = workMeter({
    db: database.db,
    redis,
    pids: { api: service.api.child.pid, worker: service.worker.child.pid },
  });
  let warm;
  const { liveKey } = await createAccountWithKeys(database.db, TOTAL * 2);
  const latencies = [];
  // Plain node:http with kept-alive sockets: the cheapest client, so the figures are the service's.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const requests = [];
  const t0 = performance.now() + 100;
  let peak = { api: 0, worker: 0 };
  for (let i = 0; i < TOTAL; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    // The work is measured from the second second: the first includes the processes' warm-up.
    if (i === RATE) warm = meter.snapshot();
    if (i % RATE === 0)
      peak = {
        api: Math.max(peak.api, rssMb(service.api.child.pid)),
        worker: Math.max(peak.worker, rssMb(service.worker.child.pid)),
      };
    const sent = performance.now();
    requests.push(
      new Promise((resolve, reject) => {
        const body = JSON.stringify({ input: { prompt: `open loop ${i}` } });
        const req = request(
          `${service.base}/models/acme/echo/run`,
          {
            method: "POST",
            agent,
            headers: {
              Authorization: `Bearer ${liveKey}`,
              "Content-Type": "application/json",
              "Content-Length": Buffer.byteLength(body),
              ...(values.keyed && { "Idempotency-Key": `open-loop-${i}` }),
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => {
              if (res.statusCode !== 201) return reject(new Error(`status ${res.statusCode}`));
              latencies.push([i, performance.now() - sent]);
              resolve();
            });
          },
        );
        req.on("error", reject);
        req.end(body);
      }),
    );
  }
  await Promise.all(requests);
  await new Promise((r) => setTimeout(r, 1000));
  const work = meter.report(await warm, await meter.snapshot(), TOTAL - RATE);
  const [row] = await database.db.$queryRaw`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at) * 1000) AS s50,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at) * 1000) AS s99,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS c50,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS c99,
           count(*) FILTER (WHERE status <> 'COMPLETED') AS unfinished
    FROM runs WHERE model_id = 'acme/echo'`;
  const by = (from, to) =>
    latencies
      .filter(([i]) => i >= from && i < to)
      .map(([, l]) => l)
      .sort((a, b) => a - b);
  // Second by second: the first includes the processes' warm-up (JIT, Prisma's first queries).
  for (let s = 0; s < TOTAL / RATE; s++) {
    const l = by(s * RATE, (s + 1) * RATE);
    console.log(`second ${s}: p50 ${percentile(l, 50).toFixed(1)} ms p99 ${percentile(l, 99).toFixed(1)} ms`);
  }
  latencies.splice(0, latencies.length, ...by(RATE, TOTAL));
  const f = (n) => Number(n).toFixed(1);
  console.log(
    `${TOTAL} ${values.keyed ? "keyed " : ""}creations at ${RATE}/s, paced, after the first second: http p50 ${f(percentile(latencies, 50))} ms p99 ${f(percentile(latencies, 99))} ms`,
  );
  console.log(
    `created -> started p50 ${f(row.s50)} ms p99 ${f(row.s99)} ms | created -> completed p50 ${f(row.c50)} ms p99 ${f(row.c99)} ms | not completed ${row.unfinished}`,
  );
  console.log(`peak RSS MB: api ${Math.round(peak.api)}, worker ${Math.round(peak.worker)}`);
  for (const line of work) console.log(line);
} finally {
  redis.disconnect();
  await service.stop();
}
