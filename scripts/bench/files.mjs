// pnpm bench:files [--uploads N] [--mb N] [--runs N]
// Input files against the built API and worker (local store):
// 1. upload throughput: N uploads of a 1 MB PNG, 8 at a time (uploads/s, MB/s, latency p50/p99),
//    then one large upload (--mb, default 50) streamed in, with the API's resident memory before
//    and at its peak (the API holds a file's first MB, never the whole file);
// 2. a file input's cost on a run: runs of a Cog-protocol model (a fake server that downloads
//    its inputs, 10 ms per prediction) made one after the other, each waited for, with the image
//    given by file id, by data URL, by https URL (a real HTTPS server on 127.0.0.1), and without
//    one (the same model, its file field left out): creation p50/p99 and created -> completed p50.
import { parseArgs } from "node:util";
import { crc32, deflateSync } from "node:zlib";
import {
  createAccountWithKeys,
  freePort,
  seedCogModel,
  startFakeCog,
  startHttpsReceiver,
} from "../../packages/testkit/dist/index.js";
import { percentile, startService } from "./service.mjs";
import { rssMb } from "./work.mjs";

const { values } = parseArgs({
  options: {
    uploads: { type: "string", default: "200" },
    mb: { type: "string", default: "50" },
    runs: { type: "string", default: "100" },
  },
});

/** A PNG of noise (it does not compress): about width x height x 3 bytes. */
function noisePng(width, height, seed = 1) {
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  let x = seed;
  for (let i = 0; i < rows.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    rows[i] = i % (width * 3 + 1) === 0 ? 0 : x >> 16;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows, { level: 0 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const stats = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: +percentile(sorted, 50).toFixed(1), p99: +percentile(sorted, 99).toFixed(1) };
};

const callbackPort = await freePort();
const service = await startService({
  env: { FILE_MAX_BYTES: String(Number(values.mb) * 1024 * 1024 + 1024 * 1024) },
  workerEnv: {
    COG_CALLBACK_URL: `http://127.0.0.1:${callbackPort}`,
    COG_CALLBACK_PORT: String(callbackPort),
    COG_CALLBACK_HOST: "127.0.0.1",
  },
});
const cog = await startFakeCog({ behaviour: { delayMs: 10 }, concurrency: 4 });
const origin = await startHttpsReceiver();
try {
  const { liveKey } = await createAccountWithKeys(service.database.db, 10_000_000);
  const auth = { authorization: `Bearer ${liveKey}` };

  // 1. Uploads.
  const file = noisePng(580, 580);
  const count = Number(values.uploads);
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < count) {
        const t = performance.now();
        const res = await fetch(`${service.base}/files`, { method: "POST", body: file, headers: auth });
        if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const uploads = {
    file_mb: +(file.length / 1024 / 1024).toFixed(2),
    uploads: count,
    per_second: +(count / seconds).toFixed(1),
    mb_per_second: +((count * file.length) / 1024 / 1024 / seconds).toFixed(1),
    latency_ms: stats(latencies),
  };

  const big = Buffer.concat([noisePng(64, 64), Buffer.alloc(Number(values.mb) * 1024 * 1024, 7)]);
  const apiPid = service.api.child.pid;
  const before = rssMb(apiPid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(apiPid))), 10);
  const t = performance.now();
  const res = await fetch(`${service.base}/files`, {
    method: "POST",
    headers: auth,
    // Streamed, without a Content-Length: what a client piping a file sends.
    body: new ReadableStream({
      start(controller) {
        for (let at = 0; at < big.length; at += 1024 * 1024)
          controller.enqueue(big.subarray(at, at + 1024 * 1024));
        controller.close();
      },
    }),
    duplex: "half",
  });
  clearInterval(sampler);
  if (res.status !== 201) throw new Error(`large upload answered ${res.status}`);
  const largeSeconds = (performance.now() - t) / 1000;
  const large = {
    mb: +(big.length / 1024 / 1024).toFixed(1),
    mb_per_second: +(big.length / 1024 / 1024 / largeSeconds).toFixed(1),
    api_rss_mb: { before: Math.round(before), peak: Math.round(peak) },
  };

  // 2. A file input's cost on a run.
  const schema = (withImage) => ({
    type: "object",
    properties: {
      prompt: { type: "string" },
      ...(withImage && { image: { type: "string", format: "uri", "x-media": "image" } }),
    },
    required: ["prompt", ...(withImage ? ["image"] : [])],
  });
  await seedCogModel(service.database.db, "bench/image-in", [cog.url], { input_schema: schema(true) });
  await seedCogModel(service.database.db, "bench/text-in", [cog.url], { input_schema: schema(false) });
  const small = noisePng(40, 40);
  origin.respond = () => ({ status: 200, body: small, headers: { "content-type": "image/png" } });
  const uploaded = await (
    await fetch(`${service.base}/files`, { method: "POST", body: small, headers: auth })
  ).json();
  const ways = {
    none: ["bench/text-in", () => ({})],
    file_id: ["bench/image-in", () => ({ image: uploaded.data.id })],
    data_url: ["bench/image-in", () => ({ image: `data:image/png;base64,${small.toString("base64")}` })],
    https_url: ["bench/image-in", () => ({ image: origin.url("/image.png") })],
  };
  const runs = {};
  for (const [way, [model, image]] of Object.entries(ways)) {
    const creation = [];
    const total = [];
    for (let i = 0; i < Number(values.runs); i++) {
      const t0 = performance.now();
      const created = await fetch(`${service.base}/models/${model}/run`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ input: { prompt: `run ${i}`, ...image() } }),
      });
      const body = await created.json();
      if (created.status !== 201) throw new Error(`${way}: ${JSON.stringify(body)}`);
      creation.push(performance.now() - t0);
      let run = body.data;
      // (The creation's answer spells statuses in lower case, as the interface spec says.)
      while (["QUEUED", "EXECUTING"].includes(run.status.toUpperCase()))
        run = (
          await fetch(`${service.base}/runs/${run.run_id}`, { headers: { ...auth, prefer: "wait=30" } }).then(
            (r) => r.json(),
          )
        ).data;
      if (run.status.toUpperCase() !== "COMPLETED") throw new Error(`${way}: the run ended ${run.status}`);
      total.push(performance.now() - t0);
    }
    runs[way] = { creation_ms: stats(creation), created_to_completed_ms: stats(total) };
  }
  console.log(JSON.stringify({ uploads, large, runs }, null, 2));
} finally {
  await cog.close();
  await origin.close();
  await service.stop();
}
