import { Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { newId } from "@svc/core";
import { deleteRedisPrefix, TEST_REDIS_URL, testQueuePrefix, waitFor } from "@svc/testkit";
import { CANCEL_CHANNEL, jobEntries, register, RUN_JOB, type RunJob } from "./jobs.js";
import { createRunsQueue, enqueueRuns } from "./queues.js";

// The job catalogue against the real Redis: payloads are checked where jobs are made and again
// where they are handled.
describe("job catalogue", () => {
  const prefix = testQueuePrefix();
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const queue = createRunsQueue(redis, prefix);
  const workerConnection = redis.duplicate();
  const seen: RunJob[] = [];
  const worker = new Worker(
    RUN_JOB.queue,
    register(RUN_JOB, async (job: Job<RunJob>) => {
      seen.push(job.data);
      return "done";
    }),
    { connection: workerConnection, prefix },
  );
  /** The job once it has finished, completed or failed. */
  const finished = (id: string) =>
    waitFor(
      async () => {
        const job = await queue.getJob(id);
        return job?.finishedOn ? job : null;
      },
      { what: `job ${id} to finish` },
    );
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await deleteRedisPrefix(prefix);
    await Promise.all([redis, workerConnection].map((c) => c.quit()));
  });

  it("when a run is enqueued twice, then one job with the run's id and the catalogue's options runs once", async () => {
    const runId = newId("run");
    await enqueueRuns(queue, [runId]);
    await enqueueRuns(queue, [runId]);
    const job = await finished(runId);
    expect(job).toMatchObject({ name: "execute", data: { runId }, opts: { attempts: 3 } });
    expect(await job.isCompleted()).toBe(true);
    expect(seen.filter((d) => d.runId === runId)).toEqual([{ runId }]);
  });

  it("when a producer makes a payload that is not a run job's, then it is refused before Redis", () => {
    expect(() => jobEntries(RUN_JOB, [{ data: { runId: "run_short" } }])).toThrow();
    expect(() => jobEntries(RUN_JOB, [{ data: { runId: newId("run"), extra: 1 } as RunJob }])).toThrow();
  });

  it.each([
    ["a malformed payload", "execute", { runId: 42 }],
    ["another kind of job", "deliver", { runId: newId("run") }],
  ])(
    "when %s reaches the worker, then it fails for good at once, saying why, without retries",
    async (_what, name, data) => {
      const job = await queue.add(name, data as RunJob, { attempts: 3, backoff: 10 });
      const failed = await finished(job.id!);
      expect(failed.failedReason).toMatch(/not a runs\/execute job/);
      expect(failed.attemptsMade).toBe(1);
      expect(await failed.isFailed()).toBe(true);
    },
  );

  it("when a message is on a channel, then only the ids it carries are accepted", () => {
    expect(CANCEL_CHANNEL.name("svc")).toBe("svc:run-cancel");
    expect(CANCEL_CHANNEL.accepts(newId("run"))).toBe(true);
    expect(CANCEL_CHANNEL.accepts("run_x\nFLUSHALL")).toBe(false);
  });
});
