// pnpm bench:batches [--items N] [--servers N] [--delay MS] [--rate R] [--share P] [--seconds S]
//                    [--lanes one|split] [--nice N] [--account same|other] [--pool same|separate]
//                    [--set NAME=VALUE ...] [--cpu-load N]
// A batch beside interactive work, on the built API and one worker (127.0.0.1) and --servers fake
// Cog servers of --delay ms (one prediction at a time, 409 when busy). --lanes split: two workers
// instead, one per lane (WORKER_LANES=interactive and WORKER_LANES=batch), the batch worker's
// threads at nice --nice (as an operator would start it with `nice -n N`). The interactive runs are
// the batch's own account's, or another account's with --account other; on the batch's model (its
// pool, the place the batch leaves them), or with --pool separate on another model with a fake
// server of its own (what is left of the batch's cost when the two share no pool).
// - without the batch: interactive runs at --rate a second for --seconds before it and as long
//   after it, their time to start (both halves together: a baseline of as many runs again, and
//   one that a machine getting slower or faster during the run moves less);
// - with it: a --items batch sent as a JSON Lines body, the same interactive load until the batch
//   has ended; items/s, the servers' utilization while the batch has items (and the longest stretch
//   with fewer than half of them busy: the pool run dry), the interactive runs'
//   time to start (p50/p95, against without), and the API's and the worker's RSS sampled
//   throughout (peak, and at a quarter and at the end of the batch: bounded, not growing with it).
// BATCH_MAX_SHARE_PERCENT is --share (default: all places but one, which interactive runs keep).
// --set NAME=VALUE (repeatable): a setting for every process of the service (docs/configuration.md),
// to measure another value of it against the defaults in the same hour.
// --cpu-load N: N processes of a load that is nothing of the service (each busy 6 ms of every 20,
// 0.3 cores) run throughout, before the service starts: what any neighbour of the batch's size does
// to the interactive runs' time to start (the "without" figures then are with that load).
// Postgres's figures during the batch (pg_stat_wal, pg_stat_database; the machine's other databases
// idle): WAL records and bytes, and flushes, per item.
import { fork } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setPriority } from "node:os";
import { parseArgs } from "node:util";
import {
  createAccountWithKeys,
  freePort,
  seedCogModel,
  startFakeCog,
  startService,
} from "../../packages/testkit/dist/index.js";
import { percentile } from "./service.mjs";

const { values } = parseArgs({
  options: {
    items: { type: "string", default: "20000" },
    servers: { type: "string", default: "8" },
    delay: { type: "string", default: "50" },
    rate: { type: "string", default: "10" },
    share: { type: "string" },
    seconds: { type: "string", default: "15" },
    lanes: { type: "string", default: "one" },
    nice: { type: "string", default: "0" },
    account: { type: "string", default: "same" },
    pool: { type: "string", default: "same" },
    set: { type: "string", multiple: true, default: [] },
    "cpu-load": { type: "string", default: "0" },
  },
});
// Before the service: its processes are not this load's children.
const cpuLoad = Array.from({ length: Number(values["cpu-load"]) }, () =>
  fork(new URL("./spin.mjs", import.meta.url)),
);
const settings = Object.fromEntries(
  values.set.map((pair) => {
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`--set ${pair}: NAME=VALUE`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
if (!["one", "split"].includes(values.lanes)) throw new Error("--lanes is one or split");
if (!["same", "other"].includes(values.account)) throw new Error("--account is same or other");
if (!["same", "separate"].includes(values.pool)) throw new Error("--pool is same or separate");
const [ITEMS, SERVERS, DELAY, RATE, SECONDS] = [
  values.items,
  values.servers,
  values.delay,
  values.rate,
  values.seconds,
].map(Number);
// Rounded up: the scheduler floors share x places, and 87% of 8 would leave batches 6, not 7.
const SHARE = values.share ?? String(Math.ceil((100 * (SERVERS - 1)) / SERVERS));
const sleep = (t) => new Promise((r) => setTimeout(r, t));
const rssMb = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
  } catch {
    return NaN;
  }
};

/** CPU seconds (user + system) of a process, from /proc (clock ticks of 10 ms). */
const cpuSeconds = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};
/** CPU seconds of every process whose command is `comm` (Postgres's backends, redis-server). */
const cpuOf = (comm) =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, "utf8").trim() === comm;
      } catch {
        return false;
      }
    })
    .reduce((sum, d) => sum + cpuSeconds(d), 0);
/** The machine's busy and total CPU seconds (/proc/stat's first line). */
const machineCpu = () => {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / 100, total: (busy + idle + iowait) / 100 };
};

const service = await startService({
  RATE_LIMIT_ENABLED: "false",
  DATABASE_POOL_SIZE: "20",
  BATCH_MAX_SHARE_PERCENT: SHARE,
  ...settings,
});
const fakeServer = () => startFakeCog({ behaviour: { delayMs: DELAY, imageSide: 16 } });
/** A model on `urls`, with synchronous predictions, as an import makes it (docs/serving-models.md). */
const seedModel = (id, urls) =>
  seedCogModel(service.database.db, id, urls, {
    runner: { health_interval_ms: 1_000, request_timeout_ms: 5_000, predictions: "sync" },
  });
const servers = await Promise.all(Array.from({ length: SERVERS }, fakeServer));
await seedModel(
  "bench/batch",
  servers.map((s) => s.url),
);
const INTERACTIVE_MODEL = values.pool === "same" ? "bench/batch" : "bench/interactive";
const ownServer = values.pool === "separate" ? await fakeServer() : undefined;
if (ownServer) await seedModel(INTERACTIVE_MODEL, [ownServer.url]);
const api = await service.startApi();
const callbackPort = await freePort();
const cogCallbacks = (port) => ({
  COG_CALLBACK_URL: `http://127.0.0.1:${port}`,
  COG_CALLBACK_PORT: String(port),
  COG_CALLBACK_HOST: "127.0.0.1",
});
/** The workers by name: one of every lane, or one per lane (--lanes split). */
const workers =
  values.lanes === "one"
    ? { worker: await service.startWorker(cogCallbacks(callbackPort)) }
    : {
        "interactive worker": await service.startWorker({
          ...cogCallbacks(callbackPort),
          WORKER_LANES: "interactive",
        }),
        "batch worker": await service.startWorker({
          ...cogCallbacks(await freePort()),
          WORKER_LANES: "batch",
        }),
      };
/** The batch worker's threads at --nice (Linux's nice is per thread: each of them). */
const niceBatchWorker = () => {
  const batchWorker = workers["batch worker"];
  if (!batchWorker || Number(values.nice) === 0) return;
  for (const tid of readdirSync(`/proc/${batchWorker.child.pid}/task`))
    try {
      setPriority(Number(tid), Number(values.nice));
    } catch {
      // A thread that ended meanwhile.
    }
};
niceBatchWorker();
const { liveKey } = await createAccountWithKeys(service.database.db, 100_000_000);
// The interactive runs' key: the batch's own account's, or another account's (--account other).
const interactiveKey =
  values.account === "other"
    ? (await createAccountWithKeys(service.database.db, 100_000_000)).liveKey
    : liveKey;
const call = async (path, init = {}) => {
  const res = await fetch(`${api.base}/api/v1${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${path.startsWith("/models") ? interactiveKey : liveKey}`,
      ...init.headers,
    },
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()).data;
};
await sleep(2_500);
niceBatchWorker();

/** Interactive runs at RATE a second until `until()` says stop; their ids. */
async function interactive(until) {
  const ids = [];
  const pending = [];
  for (let i = 0; !until(); i++) {
    pending.push(
      call(`/models/${INTERACTIVE_MODEL}/run`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { prompt: `i${i}` } }),
      }).then((r) => ids.push(r.run_id)),
    );
    await sleep(1_000 / RATE);
  }
  await Promise.all(pending);
  return ids;
}
/** The runs' creation and start, once every one has started. */
async function startsOf(ids) {
  for (;;) {
    const rows = await service.database.db.run.findMany({
      where: { id: { in: ids } },
      select: { createdAt: true, startedAt: true },
    });
    if (rows.every((r) => r.startedAt)) return rows;
    await sleep(200);
  }
}
const timesOf = (rows) => rows.map((r) => r.startedAt - r.createdAt).sort((a, b) => a - b);
const timesToStart = async (ids) => timesOf(await startsOf(ids));
/**
 * A 90% interval of the p95 ratio (with / without), by resampling both sets of runs: how far the
 * same machine's next run of this bench could land, so that a change is told from the noise.
 */
function ratioInterval(withBatch, alone, rounds = 2_000) {
  const p95Of = (xs) => {
    const sample = Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)]).sort((a, b) => a - b);
    return percentile(sample, 95);
  };
  const ratios = Array.from({ length: rounds }, () => p95Of(withBatch) / Math.max(1, p95Of(alone))).sort(
    (a, b) => a - b,
  );
  return [percentile(ratios, 5), percentile(ratios, 95)];
}

/** Without the batch: interactive runs alone for SECONDS; their times to start. */
const withoutBatch = async () => {
  const t0 = Date.now();
  return timesToStart(await interactive(() => Date.now() - t0 > SECONDS * 1_000));
};
const before = await withoutBatch();

// With it: the batch as a JSON Lines body, the same interactive load until it has ended.
const body = Array.from({ length: ITEMS }, (_, i) =>
  JSON.stringify({ custom_id: `c${i}`, input: { prompt: `c${i}` } }),
).join("\n");
const rss = [];
const processes = { API: api.app, ...workers };
const sampler = setInterval(
  () =>
    rss.push({
      at: Date.now(),
      ...Object.fromEntries(Object.entries(processes).map(([name, app]) => [name, rssMb(app.child.pid)])),
    }),
  500,
);
/** CPU seconds by process: where the batch's cost goes (read at its start and at its end). */
const cpuNow = () => ({
  ...Object.fromEntries(Object.entries(processes).map(([name, app]) => [name, cpuSeconds(app.child.pid)])),
  Postgres: cpuOf("postgres"),
  Redis: cpuOf("redis-server"),
  "fake servers and this load": process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
});
/** Postgres's WAL (the cluster's) and commits (this database's) so far. */
const postgresNow = async () => {
  const [[wal], [database]] = await Promise.all([
    service.database.db.$queryRawUnsafe("SELECT wal_records, wal_bytes, wal_sync FROM pg_stat_wal"),
    service.database.db.$queryRawUnsafe(
      "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()",
    ),
  ]);
  return {
    records: Number(wal.wal_records),
    bytes: Number(wal.wal_bytes),
    flushes: Number(wal.wal_sync),
    commits: Number(database.xact_commit),
  };
};
const postgresAtStart = await postgresNow();
const cpuAtStart = cpuNow();
const machineAtStart = machineCpu();
const madeAt = Date.now();
const batch = await call(`/batches?model=bench/batch`, {
  method: "POST",
  headers: { "content-type": "application/jsonl" },
  body,
});
const createdIn = Date.now() - madeAt;
let done = false;
const load = interactive(() => done);
let status;
for (;;) {
  status = await call(`/batches/${batch.id}`);
  if (status.status === "completed") break;
  await sleep(500);
}
done = true;
const cpuAtEnd = cpuNow();
const machineAtEnd = machineCpu();
const postgresAtEnd = await postgresNow();
const batchSeconds = (Date.now() - madeAt) / 1000;
const withBatchRuns = await startsOf(await load);
const withBatch = timesOf(withBatchRuns);
clearInterval(sampler);
const after = await withoutBatch();
const alone = [...before, ...after].sort((a, b) => a - b);

const items = await service.database.db.run.findMany({
  where: { batchId: batch.id },
  select: { startedAt: true, completedAt: true },
});
const first = Math.min(...items.map((r) => r.startedAt.getTime()));
const last = Math.max(...items.map((r) => r.completedAt.getTime()));
const predictions = servers.flatMap((s) => [...s.predictions.values()]);
const busy = predictions.reduce(
  (sum, p) => sum + Math.max(0, Math.min(p.endedAt ?? last, last) - Math.max(p.startedAt, first)),
  0,
);
const utilization = busy / (SERVERS * (last - first));
// The longest stretch while the batch had items with fewer than half the servers running a
// prediction: a pool the feeder let run dry shows here, however short against the whole batch.
const dry = (() => {
  const edges = predictions
    .filter((p) => p.startedAt < last && (p.endedAt ?? last) > first)
    .flatMap((p) => [
      [Math.max(p.startedAt, first), 1],
      [Math.min(p.endedAt ?? last, last), -1],
    ])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let [running, since, longest] = [0, first, 0];
  for (const [at, step] of edges) {
    const before = running;
    running += step;
    if (before >= SERVERS / 2 && running < SERVERS / 2) since = at;
    if (before < SERVERS / 2 && running >= SERVERS / 2) longest = Math.max(longest, at - since);
  }
  return longest;
})();
// Interactive runs made while every place of the pool ran a prediction (the batch's and the
// interactive runs' own): those waited for a place, the others found one free. Read at the run's
// creation (created_at, the database's clock, on this machine the same as the servers').
const fullAt = (t) =>
  predictions.filter((p) => p.startedAt <= t && (p.endedAt ?? Infinity) > t).length >= SERVERS;
const [foundFull, foundFree] = [true, false].map((full) =>
  timesOf(withBatchRuns.filter((r) => fullAt(r.createdAt.getTime()) === full)),
);
const during = rss.filter((r) => r.at >= madeAt);
const quarter = during[Math.floor(during.length / 4)];
const end = during.at(-1);
const peak = (k) => Math.max(...during.map((r) => r[k]));
const ms = (x) => `${Math.round(x)} ms`;

console.log(
  `\n${ITEMS} items, ${SERVERS} servers of ${DELAY} ms, BATCH_MAX_SHARE_PERCENT=${SHARE}, interactive runs at ${RATE}/s (${values.account === "same" ? "the batch's account" : "another account"}), ${values.lanes === "one" ? "one worker" : `a worker per lane, the batch worker at nice ${values.nice}`}, ${values.pool === "same" ? "on the batch's model" : "on a model and server of their own"}\n`,
);
console.log(`batch made (JSON Lines body, every line checked and stored) in ${ms(createdIn)}`);
console.log(
  `items/s ${(ITEMS / ((last - first) / 1000)).toFixed(1)} (first item start to last item end ${((last - first) / 1000).toFixed(1)} s), ${status.counts.completed} completed, ${status.counts.failed} failed`,
);
console.log(
  `servers' utilization while the batch had items: ${utilization.toFixed(3)}; the longest stretch with fewer than half of them busy ${ms(dry)}`,
);
console.log(
  `interactive time to start p50 / p95: without the batch ${ms(percentile(alone, 50))} / ${ms(percentile(alone, 95))} (${alone.length} runs; p95 ${ms(percentile(before, 95))} before the batch, ${ms(percentile(after, 95))} after it), with it ${ms(percentile(withBatch, 50))} / ${ms(percentile(withBatch, 95))} (${withBatch.length} runs): p95 ratio ${(percentile(withBatch, 95) / Math.max(1, percentile(alone, 95))).toFixed(2)} (90% interval by resampling ${ratioInterval(
    withBatch,
    alone,
  )
    .map((r) => r.toFixed(2))
    .join("-")})`,
);
if (values.pool === "same")
  console.log(
    `interactive runs made while every place was busy: ${foundFull.length} of ${withBatchRuns.length}${foundFull.length ? ` (p95 ${ms(percentile(foundFull, 95))})` : ""}; the others' p95 ${ms(percentile(foundFree, 95))}`,
  );
const names = Object.keys(processes);
const each = (f) => names.map((n) => f(n).toFixed(0)).join(" / ");
console.log(
  `RSS MB (${names.join(" / ")}): peak ${each(peak)}, at a quarter of the batch ${each((n) => quarter[n])}, at its end ${each((n) => end[n])}`,
);
// Cores busy on average while the batch ran, by process: what the batch costs each of them.
const cores = (x) => (x / batchSeconds).toFixed(2);
console.log(
  `CPU while the batch ran, in cores (of ${cores(machineAtEnd.total - machineAtStart.total)}): ${Object.keys(
    cpuAtEnd,
  )
    .map((k) => `${k} ${cores(cpuAtEnd[k] - cpuAtStart[k])}`)
    .join(", ")}; the whole machine ${cores(machineAtEnd.busy - machineAtStart.busy)}`,
);
const perItem = (k) => (postgresAtEnd[k] - postgresAtStart[k]) / ITEMS;
console.log(
  `Postgres while the batch ran, per item (the interactive runs' share included): ${perItem("records").toFixed(1)} WAL records, ${(perItem("bytes") / 1024).toFixed(2)} KB of WAL, ${perItem("flushes").toFixed(3)} WAL flushes, ${perItem("commits").toFixed(2)} commits`,
);
if (cpuLoad.length)
  console.log(
    `(all along: --cpu-load ${cpuLoad.length}, ${(0.3 * cpuLoad.length).toFixed(1)} cores of another load)`,
  );
for (const child of cpuLoad) child.kill();
await Promise.all([...servers, ...(ownServer ? [ownServer] : [])].map((s) => s.close()));
await service.stop();
process.exit(0);
