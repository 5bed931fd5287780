import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";

export const RUNS_QUEUE = "runs";
export const EXECUTE_RUN_JOB = "execute";

export const runJobSchema = z.object({ runId: z.string().startsWith("run_") });
export type RunJob = z.infer<typeof runJobSchema>;

export type RunsQueue = Queue<RunJob>;

/**
 * jobId = run id: adding the same run twice (API retry, sweeper) is a no-op while the job exists.
 * Retries cover worker-side failures (crash, Postgres blip); the run itself ends exactly once.
 */
export const RUN_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3_600 },
} satisfies JobsOptions;

export function createRunsQueue(connection: Redis, prefix: string): RunsQueue {
  const queue = new Queue<RunJob>(RUNS_QUEUE, { connection, prefix });
  queue.on("error", () => {});
  return queue;
}

export interface RunsProducer {
  enqueue(runId: string): Promise<void>;
  remove(runId: string): Promise<void>;
  queue(): RunsQueue;
  close(): Promise<void>;
}

/**
 * The API's handle on the runs queue, over a fail-fast producer connection. BullMQ's Queue asks
 * Redis for its version on construction and keeps a failed start-up for good, so the Queue is
 * made only once the connection is ready; until then every call fails at once, and the caller
 * falls back on the sweeper.
 */
export function createRunsProducer(connection: Redis, prefix: string): RunsProducer {
  let queue: RunsQueue | undefined;
  const ready = (): RunsQueue => {
    if (queue) return queue;
    if (connection.status !== "ready") throw new Error(`redis is not connected (${connection.status})`);
    return (queue = createRunsQueue(connection, prefix));
  };
  return {
    enqueue: async (runId) => enqueueRun(ready(), runId),
    remove: async (runId) => {
      await ready().remove(runId);
    },
    queue: ready,
    close: async () => queue?.close(),
  };
}

export async function enqueueRun(queue: RunsQueue, runId: string): Promise<void> {
  await queue.add(EXECUTE_RUN_JOB, { runId }, { ...RUN_JOB_OPTIONS, jobId: runId });
}

/** Pub/sub channel on which a cancel reaches whichever worker is executing the run. */
export const cancelChannel = (prefix: string) => `${prefix}:run-cancel`;

export async function publishCancel(redis: Redis, prefix: string, runId: string): Promise<void> {
  await redis.publish(cancelChannel(prefix), runId);
}
