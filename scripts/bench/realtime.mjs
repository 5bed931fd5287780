// pnpm bench:realtime [--streams N] [--waits N]
// Real time against the real API and worker processes on 127.0.0.1:
// 1. N event streams (GET /runs/{id}/events) open on N queued runs of test/wait (250 ms, no CPU):
//    the API's memory per open stream, then, once a worker with 50 slots starts (200 transitions/s
//    of each kind), transition -> event received (EXECUTING: started_at, COMPLETED: completed_at,
//    both on this machine's clock) p50/p99.
// 2. N concurrent creations with Prefer: wait=60 of test/wait: the API's memory per waiting
//    request, and completed_at -> answer received p50/p99.
import { Agent, request } from "node:http";
import { parseArgs } from "node:util";
import { createAccountWithKeys } from "../../packages/testkit/dist/index.js";
import { percentile, startService } from "./service.mjs";
import { rssMb } from "./work.mjs";

const { values } = parseArgs({
  options: { streams: { type: "string", default: "1000" }, waits: { type: "string", default: "500" } },
});
const STREAMS = Number(values.streams);
const WAITS = Number(values.waits);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
// Streams get sockets of their own: an ended stream's socket left idle in the pool could be
// reused just as the server's keep-alive time-out closes it.
const streamAgent = new Agent({ keepAlive: false, maxSockets: Infinity });
const summary = (label, xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `${label} p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (n=${sorted.length})`;
};

function post(base, key, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      `${base}${path}`,
      {
        method: "POST",
        agent,
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(text),
          ...headers,
        },
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (data += c));
        res.on("error", reject);
        res.on("end", () =>
          res.statusCode === 201
            ? resolve(JSON.parse(data).data)
            : reject(new Error(`${res.statusCode} ${data}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** An SSE client that records when each status event arrives. */
function openStream(base, key, runId, onStatus) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/runs/${runId}/events`, {
      agent: streamAgent,
      headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream" },
    });
    req.on("response", (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream ${res.statusCode}`));
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const at = Date.now();
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === "status") onStatus(JSON.parse(data), at);
        }
      });
      res.on("end", resolve);
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

async function inBatches(n, size, fn) {
  const out = [];
  for (let i = 0; i < n; i += size)
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => fn(i + j)))));
  return out;
}

const service = await startService({ startWorkerNow: false, workerEnv: { WORKER_CONCURRENCY: "50" } });
const pid = service.api.child.pid;
try {
  const { liveKey } = await createAccountWithKeys(service.database.db, (STREAMS + WAITS) * 10);

  // 1. Streams on queued runs.
  const runs = await inBatches(STREAMS, 50, (i) =>
    post(service.base, liveKey, "/models/test/wait/run", { input: { prompt: `stream ${i}` } }),
  );
  await new Promise((r) => setTimeout(r, 500));
  const before = rssMb(pid);
  const executing = [];
  const completed = [];
  let queued = 0;
  const streams = runs.map((run) =>
    openStream(service.base, liveKey, run.run_id, (view, at) => {
      if (view.status === "QUEUED") queued++;
      else if (view.status === "EXECUTING") executing.push(at - Date.parse(view.started_at));
      else if (view.status === "COMPLETED") completed.push(at - Date.parse(view.completed_at));
    }),
  );
  while (queued < STREAMS) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  const open = rssMb(pid);
  console.log(
    `${STREAMS} open streams: API RSS ${before.toFixed(0)} -> ${open.toFixed(0)} MB, ${(((open - before) * 1024) / STREAMS).toFixed(1)} KiB per stream`,
  );
  await service.startWorker();
  await Promise.all(streams);
  console.log(summary("  started -> EXECUTING event", executing));
  console.log(summary("  completed -> COMPLETED event", completed));

  // 2. Concurrent creations that wait for their result.
  await new Promise((r) => setTimeout(r, 1000));
  const base2 = rssMb(pid);
  let peak = base2;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const answers = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WAITS }, (_, i) =>
      post(
        service.base,
        liveKey,
        "/models/test/steps/run",
        { input: { prompt: `wait ${i}` } },
        {
          Prefer: "wait=60",
        },
      ).then((run) => {
        if (run.status !== "COMPLETED") throw new Error(`run ${run.run_id} answered ${run.status}`);
        answers.push(Date.now() - Date.parse(run.completed_at));
      }),
    ),
  );
  clearInterval(sampler);
  console.log(
    `${WAITS} concurrent Prefer: wait creations: all COMPLETED in ${((performance.now() - t0) / 1000).toFixed(1)} s; API RSS ${base2.toFixed(0)} -> peak ${peak.toFixed(0)} MB, ${(((peak - base2) * 1024) / WAITS).toFixed(1)} KiB per waiting request`,
  );
  console.log(summary("  completed -> answer received", answers));
  const [row] = await service.database.db.$queryRaw`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at) * 1000) AS s50,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - started_at) * 1000) AS e50,
           max(extract(epoch FROM completed_at - created_at) * 1000) AS total
    FROM runs WHERE input->>'prompt' LIKE 'wait %'`;
  console.log(
    `  (database: created -> started p50 ${Number(row.s50).toFixed(0)} ms, started -> completed p50 ${Number(row.e50).toFixed(0)} ms, last completed ${Number(row.total).toFixed(0)} ms after its creation)`,
  );
} catch (error) {
  // A benchmark that fails says why: the processes' last words.
  await new Promise((r) => setTimeout(r, 1000));
  for (const app of [service.api, service.worker]) {
    console.error("process", app?.child.pid, "exit", app?.child.exitCode, app?.child.signalCode);
    for (const line of app?.lines.filter((l) => l.level !== "info").slice(-15) ?? [])
      console.error(JSON.stringify(line).slice(0, 1500));
  }
  throw error;
} finally {
  agent.destroy();
  streamAgent.destroy();
  await service.stop();
}
