// pnpm bench:storage [--mb N]
// A Cog model returns one N MB video (default 200) by URL; the worker streams it into an
// S3-compatible bucket (s3rver on 127.0.0.1, in this process), then a client downloads it through
// the API (OUTPUT_URLS=proxied). Reported: the worker's and the API's resident memory before and
// at their peak during the copy (sampled every 10 ms from /proc), and the throughput of each leg.
import { parseArgs } from "node:util";
import { loadCatalogue, seedCatalogue } from "../../packages/db/dist/index.js";
import {
  createAccountWithKeys,
  freePort,
  startFakeCog,
  startS3Server,
} from "../../packages/testkit/dist/index.js";
import { startService } from "./service.mjs";
import { rssMb } from "./work.mjs";

const { values } = parseArgs({ options: { mb: { type: "string", default: "200" } } });
const BYTES = Number(values.mb) * 1024 * 1024;
/** Samples a process's RSS until stopped; returns the peak. */
function sampler(pid) {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
  return () => (clearInterval(timer), peak);
}

const s3 = await startS3Server();
const cog = await startFakeCog({ behaviour: { delayMs: 10, videoBytes: BYTES } });
const callbackPort = await freePort();
const service = await startService({
  env: { ...s3.env },
  workerEnv: {
    COG_CALLBACK_URL: `http://127.0.0.1:${callbackPort}`,
    COG_CALLBACK_PORT: String(callbackPort),
    COG_CALLBACK_HOST: "127.0.0.1",
    OUTPUT_MAX_BYTES: String(BYTES + 1),
  },
});
try {
  const [clip] = (await loadCatalogue()).filter((m) => m.id === "acme/motion/clip");
  await seedCatalogue(service.database.db, [
    {
      ...clip,
      id: "bench/cog-video",
      name: "bench",
      runner: { kind: "cog", servers: [cog.url], output: "video" },
    },
  ]);
  const { liveKey } = await createAccountWithKeys(service.database.db, 1_000);
  const headers = { authorization: `Bearer ${liveKey}`, "content-type": "application/json" };
  const workerPid = service.worker.child.pid;
  const apiPid = service.api.child.pid;
  const workerBefore = rssMb(workerPid);
  const workerPeak = sampler(workerPid);
  const started = performance.now();
  const created = await fetch(`${service.base}/models/bench/cog-video/run`, {
    method: "POST",
    headers: { ...headers, prefer: "wait=60" },
    body: JSON.stringify({ input: { prompt: "a long take", duration_seconds: 10 } }),
  }).then((r) => r.json());
  if (!created.data) throw new Error(`creation failed: ${JSON.stringify(created)}`);
  let run = created.data;
  while (run.status === "QUEUED" || run.status === "EXECUTING")
    run = (
      await fetch(`${service.base}/runs/${run.run_id}`, { headers: { ...headers, prefer: "wait=60" } }).then(
        (r) => r.json(),
      )
    ).data;
  const uploadMs = performance.now() - started;
  const workerMax = workerPeak();
  if (run.status !== "COMPLETED")
    throw new Error(`the run ended ${run.status}: ${JSON.stringify(run.error)}`);
  const [url] = run.output.video;
  const stored = await s3.keys();

  const apiBefore = rssMb(apiPid);
  const apiPeak = sampler(apiPid);
  const downloadStart = performance.now();
  const res = await fetch(url);
  let received = 0;
  for await (const chunk of res.body) received += chunk.length;
  const downloadMs = performance.now() - downloadStart;
  const apiMax = apiPeak();

  const mb = BYTES / 1024 / 1024;
  console.log(
    `output: ${mb} MB, stored as ${stored.join(", ")}; downloaded ${received} bytes (${res.status})`,
  );
  console.log(
    `worker: RSS ${workerBefore.toFixed(0)} MB before, peak ${workerMax.toFixed(0)} MB while streaming ` +
      `into the bucket; creation -> completed ${(uploadMs / 1000).toFixed(1)} s (${(mb / (uploadMs / 1000)).toFixed(0)} MB/s)`,
  );
  console.log(
    `api: RSS ${apiBefore.toFixed(0)} MB before, peak ${apiMax.toFixed(0)} MB while serving it from the bucket; ` +
      `${(downloadMs / 1000).toFixed(1)} s (${(mb / (downloadMs / 1000)).toFixed(0)} MB/s)`,
  );
  if (received !== BYTES) throw new Error(`downloaded ${received} bytes, expected ${BYTES}`);
  console.log(workerMax < 300 ? "worker RSS < 300 MB: met" : "worker RSS < 300 MB: MISSED");
} finally {
  await service.stop();
  await cog.close();
  await s3.close();
}
