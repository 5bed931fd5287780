import { newId } from "@svc/core";
import { createLogger } from "@svc/logger";
import {
  createLeasedRunsQueue,
  createRedis,
  type Dispatched,
  type JobLane,
  type LeasedRunJob,
  type ByLane,
  type LeasedRunsQueue,
  type RedisClient,
} from "@svc/queue";
import { deleteRedisPrefix, testQueuePrefix, TEST_REDIS_URL, waitFor } from "@svc/testkit";
import { PassThrough } from "node:stream";
import type { RunJobOf } from "./executeRun.js";
import { localRuns } from "./localRuns.js";

// Leased runs executed by the worker that leased them, against the real Redis: their jobs are the
// backstop another worker takes over from (written once a run has executed a while, delayed while
// it executes here, then removed).
describe("runs executed where they were leased", () => {
  let redis: RedisClient;
  let leased: ByLane<LeasedRunsQueue>;
  const prefix = testQueuePrefix();
  const logger = createLogger({ service: "worker", level: "error", stream: new PassThrough() });

  beforeAll(async () => {
    redis = createRedis(TEST_REDIS_URL, "worker");
    leased = {
      interactive: createLeasedRunsQueue(redis, prefix),
      batch: createLeasedRunsQueue(redis, prefix, "batch"),
    };
  });
  afterAll(async () => {
    await Promise.all([leased.interactive.close(), leased.batch.close()]);
    await deleteRedisPrefix(prefix);
    await redis.quit();
  });

  const dispatched = (): Dispatched => ({
    runId: newId("run"),
    slot: "http://gpu:8000#0",
    pool: "oai/local",
  });
  const stateOf = async (runId: string) => (await leased.interactive.getJob(runId))?.getState() ?? "gone";

  /** An execution that ends when told to, recording what it was given. */
  function controlled() {
    const seen: {
      job: RunJobOf<LeasedRunJob>;
      lane: JobLane;
      signal: AbortSignal;
      begun?: Promise<boolean>;
    }[] = [];
    const ends = new Map<string, (error?: Error) => void>();
    return {
      seen,
      end: (runId: string, error?: Error) => ends.get(runId)!(error),
      execute: (
        job: RunJobOf<LeasedRunJob>,
        lane: JobLane,
        signal: AbortSignal,
        begun?: Promise<boolean>,
      ) => {
        seen.push({ job, lane, signal, begun });
        return new Promise<void>((resolve, reject) => {
          ends.set(job.data.runId, (error) => (error ? reject(error) : resolve()));
          signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
        });
      },
    };
  }

  /** Local runs whose backstops are written after 50 ms. */
  const soonBackstopped = (exec: ReturnType<typeof controlled>) =>
    localRuns({ leased, execute: exec.execute, backstopMs: 30_000, backstopAfterMs: 50, logger });

  it("when a run is launched here, then it executes at once with its begin, and one that ends before the backstop is due never writes a job", async () => {
    const exec = controlled();
    const local = localRuns({ leased, execute: exec.execute, backstopMs: 30_000, logger });
    const run = dispatched();
    const begun = Promise.resolve(true);
    local.launch([run], new Map([[run.runId, begun]]));
    expect(exec.seen).toHaveLength(1);
    expect(exec.seen[0]!.job.data).toMatchObject({ runId: run.runId, slot: run.slot, pool: run.pool });
    expect(exec.seen[0]!.begun).toBe(begun);
    // The first of a job's three attempts; the job keeps two for its retries.
    expect(exec.seen[0]!.job).toMatchObject({ attemptsMade: 0, opts: { attempts: 3 } });
    exec.end(run.runId);
    await local.drain();
    expect(await stateOf(run.runId)).toBe("gone");
  });

  it("when a run executes past the backstop's wait, then its job waits delayed, is pushed back, never comes due, and goes when the run ends", async () => {
    const exec = controlled();
    const local = localRuns({ leased, execute: exec.execute, backstopMs: 400, backstopAfterMs: 100, logger });
    const run = dispatched();
    local.launch([run]);
    expect(await stateOf(run.runId)).toBe("gone");
    await waitFor(async () => ((await stateOf(run.runId)) === "delayed" ? true : null), {
      what: "the backstop written",
    });
    expect((await leased.interactive.getJob(run.runId))!.opts.attempts).toBe(2);
    // When it comes due: its score in the delayed set (BullMQ keeps ms times 0x1000 there).
    const due = async () =>
      Math.floor(Number(await redis.zscore(`${prefix}:leased-runs:delayed`, run.runId)) / 0x1000);
    const firstDue = await due();
    await waitFor(async () => (await due()) > firstDue + 500, { what: "the backstop to be pushed back" });
    expect(await stateOf(run.runId)).toBe("delayed");
    exec.end(run.runId);
    await local.drain();
    expect(await stateOf(run.runId)).toBe("gone");
  });

  it("when a batch item and an interactive run execute past the backstop's wait together, then each executes in its lane and its backstop is in its lane's queue", async () => {
    const exec = controlled();
    const local = soonBackstopped(exec);
    const item = { ...dispatched(), batch: true };
    const run = dispatched();
    local.launch([item, run]);
    expect(exec.seen.map((s) => [s.job.data.runId, s.lane])).toEqual([
      [item.runId, "batch"],
      [run.runId, "interactive"],
    ]);
    await waitFor(async () => ((await leased.batch.getJob(item.runId)) ? true : null), {
      what: "the batch item's backstop written",
    });
    await waitFor(async () => ((await leased.interactive.getJob(run.runId)) ? true : null), {
      what: "the run's backstop written",
    });
    expect(await leased.interactive.getJob(item.runId)).toBeUndefined();
    expect(await leased.batch.getJob(run.runId)).toBeUndefined();
    expect(await (await leased.batch.getJob(item.runId))!.getState()).toBe("delayed");
    exec.end(item.runId);
    exec.end(run.runId);
    await local.drain();
    expect(await leased.batch.getJob(item.runId)).toBeUndefined();
    expect(await stateOf(run.runId)).toBe("gone");
  });

  it("when an attempt fails before its backstop was written, then a job is written due after a job's backoff", async () => {
    const exec = controlled();
    const local = localRuns({ leased, execute: exec.execute, backstopMs: 30_000, logger });
    const run = dispatched();
    local.launch([run]);
    exec.end(run.runId, new Error("postgres went away"));
    await local.drain();
    const job = await leased.interactive.getJob(run.runId);
    expect(job).toMatchObject({ delay: 1_000, opts: { attempts: 2 } });
    expect(await stateOf(run.runId)).toMatch(/delayed|waiting/);
    await job!.remove();
  });

  it("when an attempt fails for the worker's reasons after its backstop was written, then its job comes due after a job's backoff, for another worker to retry", async () => {
    const exec = controlled();
    const local = soonBackstopped(exec);
    const run = dispatched();
    local.launch([run]);
    await waitFor(async () => ((await stateOf(run.runId)) === "delayed" ? true : null), {
      what: "the backstop written",
    });
    exec.end(run.runId, new Error("postgres went away"));
    await waitFor(
      async () => {
        const job = await leased.interactive.getJob(run.runId);
        return job && job.delay === 1_000 ? true : null;
      },
      { what: "the job's retry scheduled" },
    );
    expect(await stateOf(run.runId)).toMatch(/delayed|waiting/);
    await local.drain();
    await (await leased.interactive.getJob(run.runId))!.remove();
  });

  it("when a run executing here is canceled, then its execution's signal aborts; a run not here is not its to cancel", async () => {
    const exec = controlled();
    const local = localRuns({ leased, execute: exec.execute, backstopMs: 30_000, logger });
    const run = dispatched();
    local.launch([run]);
    expect(local.cancel(newId("run"), "canceled")).toBe(false);
    expect(local.cancel(run.runId, "canceled")).toBe(true);
    expect(exec.seen[0]!.signal.aborted).toBe(true);
    await local.drain();
  });

  it("when the worker stops, then it takes no more runs and waits for those executing here", async () => {
    const exec = controlled();
    const local = localRuns({ leased, execute: exec.execute, backstopMs: 30_000, logger });
    const run = dispatched();
    local.launch([run]);
    expect(local.accepting()).toBe(true);
    let drained = false;
    const draining = local.drain().then(() => (drained = true));
    expect(local.accepting()).toBe(false);
    // Whatever is due now runs first: the drain still waits for the run.
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    exec.end(run.runId);
    await draining;
    expect(drained).toBe(true);
  });
});
