import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import { DELIVERY_ATTEMPTS } from "@svc/core";
import { runEventRecorder, type RunEventSettings } from "./runEvents.js";

export const RUNS_QUEUE = "runs";
export const DELIVERIES_QUEUE = "deliveries";
/** Cancel-After deadlines: a delayed job per run, at its deadline. */
export const DEADLINES_QUEUE = "deadlines";

export const runJobSchema = z.object({ runId: z.string().startsWith("run_") });
export type RunJob = z.infer<typeof runJobSchema>;
export const deliveryJobSchema = z.object({ deliveryId: z.string().startsWith("whd_") });
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

export type RunsQueue = Queue<RunJob>;
export type DeliveriesQueue = Queue<DeliveryJob>;
export type DeadlinesQueue = Queue<RunJob>;

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

/** jobId = delivery id. The delays between attempts are the worker's (custom backoff, core.retryDelay). */
export const DELIVERY_JOB_OPTIONS = {
  attempts: DELIVERY_ATTEMPTS,
  backoff: { type: "custom" },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3_600 },
} satisfies JobsOptions;

/** jobId = run id; a deadline whose run has ended is a no-op, so one try and a short memory suffice. */
export const DEADLINE_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3_600 },
} satisfies JobsOptions;

function queue<T>(name: string, connection: Redis, prefix: string): Queue<T> {
  const q = new Queue<T>(name, { connection, prefix });
  q.on("error", () => {});
  return q;
}

export const createRunsQueue = (connection: Redis, prefix: string): RunsQueue =>
  queue<RunJob>(RUNS_QUEUE, connection, prefix);
export const createDeliveriesQueue = (connection: Redis, prefix: string): DeliveriesQueue =>
  queue<DeliveryJob>(DELIVERIES_QUEUE, connection, prefix);
export const createDeadlinesQueue = (connection: Redis, prefix: string): DeadlinesQueue =>
  queue<RunJob>(DEADLINES_QUEUE, connection, prefix);

export async function enqueueRun(q: RunsQueue, runId: string): Promise<void> {
  await q.add("execute", { runId }, { ...RUN_JOB_OPTIONS, jobId: runId });
}

/** A batch of runs in one round trip (a group-committed batch of creations). */
export async function enqueueRuns(q: RunsQueue, runIds: readonly string[]): Promise<void> {
  if (!runIds.length) return;
  await q.addBulk(
    runIds.map((runId) => ({ name: "execute", data: { runId }, opts: { ...RUN_JOB_OPTIONS, jobId: runId } })),
  );
}

export async function enqueueDeliveries(q: DeliveriesQueue, deliveryIds: readonly string[]): Promise<void> {
  if (!deliveryIds.length) return;
  await q.addBulk(
    deliveryIds.map((deliveryId) => ({
      name: "deliver",
      data: { deliveryId },
      opts: { ...DELIVERY_JOB_OPTIONS, jobId: deliveryId },
    })),
  );
}

/** What reviveJobs did: ids enqueued afresh, ids whose failed job was retried, ids it could not check. */
export interface Revived {
  enqueued: string[];
  retried: string[];
  failed: Array<{ id: string; error: unknown }>;
}

/**
 * For records that still wait for their job (queued runs, pending deliveries): a job that is
 * missing (enqueue failed after commit, Redis lost its data) is added again, one that failed for
 * good is retried. Each id is handled on its own, so one that cannot be checked does not stop the
 * others; the missing ones go out in one addBulk. Safe on every replica: job ids are the records' ids.
 */
export async function reviveJobs(
  queue: Queue,
  ids: readonly string[],
  enqueue: (ids: readonly string[]) => Promise<void>,
): Promise<Revived> {
  const revived: Revived = { enqueued: [], retried: [], failed: [] };
  for (const id of ids) {
    try {
      const job = await queue.getJob(id);
      if (!job) revived.enqueued.push(id);
      else if (await job.isFailed()) {
        await job.retry();
        revived.retried.push(id);
      }
    } catch (error) {
      revived.failed.push({ id, error });
    }
  }
  try {
    await enqueue(revived.enqueued);
  } catch (error) {
    revived.failed.push(...revived.enqueued.map((id) => ({ id, error })));
    revived.enqueued = [];
  }
  return revived;
}

export interface Producer {
  enqueueDeliveries(deliveryIds: readonly string[]): Promise<void>;
  runs(): RunsQueue;
  deliveries(): DeliveriesQueue;
  deadlines(): DeadlinesQueue;
  close(): Promise<void>;
}

/**
 * The API's handle on the queues, over a fail-fast producer connection. BullMQ's Queue asks Redis
 * for its version on construction and keeps a failed start-up for good, so each Queue is made
 * only once the connection is ready; until then every call fails at once, and the caller falls
 * back on the sweeper.
 */
export function createProducer(connection: Redis, prefix: string): Producer {
  const made: { runs?: RunsQueue; deliveries?: DeliveriesQueue; deadlines?: DeadlinesQueue } = {};
  const ready = () => {
    if (connection.status !== "ready") throw new Error(`redis is not connected (${connection.status})`);
  };
  const runs = () => {
    ready();
    return (made.runs ??= createRunsQueue(connection, prefix));
  };
  const deliveries = () => {
    ready();
    return (made.deliveries ??= createDeliveriesQueue(connection, prefix));
  };
  const deadlines = () => {
    ready();
    return (made.deadlines ??= createDeadlinesQueue(connection, prefix));
  };
  return {
    enqueueDeliveries: async (ids) => enqueueDeliveries(deliveries(), ids),
    runs,
    deliveries,
    deadlines,
    close: async () => {
      await Promise.allSettled([made.runs?.close(), made.deliveries?.close(), made.deadlines?.close()]);
    },
  };
}

/** Pub/sub channel on which a cancel reaches whichever worker is executing the run. */
export const cancelChannel = (prefix: string) => `${prefix}:run-cancel`;

export async function publishCancel(redis: Redis, prefix: string, runId: string): Promise<void> {
  await redis.publish(cancelChannel(prefix), runId);
}

/**
 * What the run lifecycle needs from the queues (packages/use-cases LifecycleQueues), over the
 * caller's queues: the API's fail-fast producer or the worker's own.
 */
export function runTransport(
  redis: Redis,
  prefix: string,
  queues: { runs(): RunsQueue; deliveries(): DeliveriesQueue; deadlines(): DeadlinesQueue },
  events: RunEventSettings,
) {
  const record = runEventRecorder(redis, prefix, events);
  return {
    enqueueRuns: async (runIds: readonly string[]) => enqueueRuns(queues.runs(), runIds),
    enqueueDeliveries: async (ids: readonly string[]) => enqueueDeliveries(queues.deliveries(), ids),
    recordEvents: record,
    async scheduleDeadlines(deadlines: readonly { runId: string; at: Date }[]) {
      const now = Date.now();
      await queues.deadlines().addBulk(
        deadlines.map(({ runId, at }) => ({
          name: "cancel",
          data: { runId },
          opts: { ...DEADLINE_JOB_OPTIONS, jobId: runId, delay: Math.max(0, at.getTime() - now) },
        })),
      );
    },
    async stopRun(runId: string) {
      const [removed, published] = await Promise.allSettled([
        queues.runs().remove(runId),
        publishCancel(redis, prefix, runId),
      ]);
      for (const r of [removed, published]) if (r.status === "rejected") throw r.reason;
    },
  };
}
