import { UnrecoverableError, type Job, type JobsOptions } from "bullmq";
import { z } from "zod";
import { DELIVERY_ATTEMPTS, idPattern, runnerSchema } from "@svc/core";
import { INPUT_KEPT_MAX_BYTES } from "./scheduler/index.js";

// The catalogue of the service's jobs and pub/sub channels: each is declared here once (queue,
// name, payload schema, options, id), and producers and workers reach it only through these
// definitions, so that a payload is checked where it is made and again where it is handled.

/** One kind of job. */
export interface JobDefinition<T> {
  queue: string;
  name: string;
  schema: z.ZodType<T>;
  options: JobsOptions;
  /** Its id, from its payload: adding the same work twice is a no-op while the job exists. */
  idOf(data: T): string;
}

export const defineJob = <T>(job: JobDefinition<T>): JobDefinition<T> => job;

/** addBulk entries for payloads of one kind, each with the job's options and id (plus its own). */
export function jobEntries<T>(job: JobDefinition<T>, items: readonly { data: T; opts?: JobsOptions }[]) {
  return items.map(({ data, opts }) => ({
    name: job.name,
    data: job.schema.parse(data),
    opts: { ...job.options, ...opts, jobId: job.idOf(data) },
  }));
}

/**
 * A BullMQ processor for one kind of job: the payload is parsed before the handler sees it. A
 * payload that does not parse can never succeed, so its job fails for good at once
 * (UnrecoverableError: no retries), naming what was wrong.
 */
export function register<T, R>(
  job: JobDefinition<T>,
  handler: (job: Job<T>, signal?: AbortSignal) => Promise<R>,
): (job: Job, token?: string, signal?: AbortSignal) => Promise<R> {
  return async (received, _token, signal) => {
    const parsed = job.schema.safeParse(received.data);
    if (!parsed.success || received.name !== job.name)
      throw new UnrecoverableError(
        `not a ${job.queue}/${job.name} job: ${parsed.success ? `named ${received.name}` : z.prettifyError(parsed.error)}`,
      );
    received.data = parsed.data;
    return handler(received as Job<T>, signal);
  };
}

const runPayload = z.strictObject({ runId: z.string().regex(idPattern("run")) });
export type RunJob = z.infer<typeof runPayload>;

/**
 * What a worker needs to execute an instant run (core's isInstant) and settle it without reading
 * it first, as it was at creation. The settlement checks it against the run (QUEUED, holding
 * `reservedTokens`); a run that does not match is executed the usual way.
 */
const instantRun = z.strictObject({
  modelId: z.string().min(1).max(200),
  accountId: z.string().min(1).max(200),
  /** Its input as JSON (at most INPUT_KEPT_MAX_BYTES: a larger one is read at the start instead). */
  input: z.string().max(INPUT_KEPT_MAX_BYTES),
  unitsRequested: z.int().positive(),
  reservedTokens: z.int().nonnegative(),
  /** Its created_at (ms, the database's clock): its start is never recorded before it. */
  createdAt: z.int().nonnegative(),
  /** Its price for the units it asked for, fixed at creation (core's runCharge). */
  estimatedTokens: z.int().nonnegative(),
  runner: runnerSchema,
  /** The W3C traceparent of the request that made it (tracing on): the worker's spans join it. */
  traceParent: z.string().max(512).optional(),
});
export type InstantRun = z.infer<typeof instantRun>;
const directRunPayload = runPayload.extend({ instant: instantRun.optional() });
export type DirectRunJob = z.infer<typeof directRunPayload>;

const runJobOptions: JobsOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3_600 },
};

/**
 * A run of an unlimited model (acme/echo) to execute as soon as a worker is free. Retries cover
 * worker-side failures (crash, Postgres blip); the run itself ends exactly once.
 */
export const RUN_JOB = defineJob<DirectRunJob>({
  queue: "runs",
  name: "execute",
  schema: directRunPayload,
  idOf: (d) => d.runId,
  options: runJobOptions,
});

const leasedPayload = runPayload.extend({
  /** The slot the scheduler leased it (scheduler/): a model server's, or a render thread. */
  slot: z.string().min(1).max(4_096),
  /** When the slot was leased (ms), for the dispatch latency. */
  leasedAt: z.int().nonnegative(),
  /** Its model (the pool's id). */
  pool: z.string().min(1).max(200),
  /** Its work was sent to the slot by the dispatching worker already (a Cog prediction started). */
  begun: z.boolean().optional(),
});
export type LeasedRunJob = z.infer<typeof leasedPayload>;

/**
 * A run of a limited model that the scheduler leased a slot to: it has waited QUEUED in its pool
 * until now, and starts as soon as a worker takes it. A queue of its own, so that these jobs (as
 * many as the pools have slots) never wait behind a backlog of unlimited models' runs.
 */
export const LEASED_RUN_JOB = defineJob<LeasedRunJob>({
  queue: "leased-runs",
  name: "execute",
  schema: leasedPayload,
  idOf: (d) => d.runId,
  options: runJobOptions,
});

/**
 * A batch item's jobs (issue #61): the same jobs as an interactive run's, in queues of their own,
 * so that a worker may take one lane's work and not the other's (WORKER_LANES): batch load kept off
 * the workers that interactive runs cross.
 */
export const BATCH_RUN_JOB = defineJob<DirectRunJob>({ ...RUN_JOB, queue: "batch-runs" });
export const LEASED_BATCH_RUN_JOB = defineJob<LeasedRunJob>({
  ...LEASED_RUN_JOB,
  queue: "leased-batch-runs",
});

/** A run's lane as its jobs' queues know it: interactive (normal and low runs) or batch, in that order of precedence. */
export const JOB_LANES = ["interactive", "batch"] as const;
export type JobLane = (typeof JOB_LANES)[number];
/** A run's jobs by lane: an interactive run's, or a batch item's. */
export const RUN_JOBS = {
  interactive: { runs: RUN_JOB, leased: LEASED_RUN_JOB },
  batch: { runs: BATCH_RUN_JOB, leased: LEASED_BATCH_RUN_JOB },
} as const satisfies Record<
  JobLane,
  { runs: JobDefinition<DirectRunJob>; leased: JobDefinition<LeasedRunJob> }
>;
export const laneOf = (batch: boolean | undefined): JobLane => (batch ? "batch" : "interactive");

const deliveryPayload = z.strictObject({ deliveryId: z.string().regex(idPattern("whd")) });
export type DeliveryJob = z.infer<typeof deliveryPayload>;

/** A webhook delivery. The delays between attempts are the worker's (custom backoff, core.retryDelay). */
export const DELIVERY_JOB = defineJob<DeliveryJob>({
  queue: "deliveries",
  name: "deliver",
  schema: deliveryPayload,
  idOf: (d) => d.deliveryId,
  options: {
    attempts: DELIVERY_ATTEMPTS,
    backoff: { type: "custom" },
    removeOnComplete: { age: 3_600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3_600 },
  },
});

/**
 * Cancel-After: a delayed job per run, due at its deadline. A deadline whose run has ended is a
 * no-op, so a short memory suffices.
 */
export const DEADLINE_JOB = defineJob<RunJob>({
  queue: "deadlines",
  name: "cancel",
  schema: runPayload,
  idOf: (d) => d.runId,
  options: {
    attempts: 5,
    backoff: { type: "exponential", delay: 1_000 },
    removeOnComplete: true,
    removeOnFail: { age: 24 * 3_600 },
  },
});

/** A pub/sub channel whose messages are ids, under the queue prefix. */
export interface ChannelDefinition {
  name(prefix: string): string;
  /** Whether a message is one this channel carries (anything else is ignored). */
  accepts(message: string): boolean;
}

const channel = (suffix: string, message: RegExp): ChannelDefinition => ({
  name: (prefix) => `${prefix}:${suffix}`,
  accepts: (m) => message.test(m),
});

/** A cancel, to whichever worker is executing the run: its id. */
export const CANCEL_CHANNEL = channel("run-cancel", idPattern("run"));
/** A Cog prediction's result was stored (packages/runners' Cog runner waits for it): its id. */
export const COG_DONE_CHANNEL = channel("cog-done", /^[\w-]{1,200}$/);
