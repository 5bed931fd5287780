import { Worker, type WorkerOptions } from "bullmq";
import { retryDelay } from "@svc/core";
import type { WorkerConfig } from "@svc/config";
import { DEADLINE_JOB, DELIVERY_JOB, register, RUN_JOBS, type JobDefinition, type JobLane } from "@svc/queue";
import type { RedisClient } from "@svc/queue";
import type { AssembledWorker } from "./assembly.js";
import { executeRun } from "./runs/executeRun.js";
import { deliverWebhook } from "./webhooks/deliverWebhook.js";

/** One kind of job this worker processes: its definition, its handler and its worker options. */
interface Processor<T> {
  name: string;
  job: JobDefinition<T>;
  handle(job: import("bullmq").Job<T>, signal?: AbortSignal): Promise<unknown>;
  options: Omit<WorkerOptions, "connection" | "prefix">;
}

const processor = <T>(p: Processor<T>) => p as Processor<unknown>;

/** The processors of run jobs by lane: a worker has those of the lanes it executes (WORKER_LANES). */
const RUN_PROCESSORS = {
  interactive: { runs: "runs", leased: "leased runs" },
  batch: { runs: "batch runs", leased: "leased batch runs" },
} as const satisfies Record<JobLane, { runs: string; leased: string }>;
export const RUN_PROCESSOR_NAMES: string[] = Object.values(RUN_PROCESSORS).flatMap(Object.values);

/** Every job the worker processes, with the options each needs (the registry startWorker reads). */
export function processors(config: WorkerConfig, parts: AssembledWorker): Processor<unknown>[] {
  const runOptions = {
    concurrency: config.WORKER_CONCURRENCY,
    lockDuration: config.RUN_LOCK_MS,
    stalledInterval: Math.max(250, Math.floor(config.RUN_LOCK_MS / 2)),
    maxStalledCount: 2,
  };
  const runs = (lane: JobLane) => [
    processor({
      name: RUN_PROCESSORS[lane].runs,
      job: RUN_JOBS[lane].runs,
      handle: (job, signal) => executeRun(parts.execute, job, lane, signal),
      options: runOptions,
    }),
    // Runs that hold a slot: as many at once as the pools have slots, never behind the others.
    processor({
      name: RUN_PROCESSORS[lane].leased,
      job: RUN_JOBS[lane].leased,
      handle: (job, signal) => executeRun(parts.execute, job, lane, signal),
      options: runOptions,
    }),
  ];
  return [
    ...(parts.executes.interactive ? runs("interactive") : []),
    ...(parts.executes.batch ? runs("batch") : []),
    processor({
      name: "deliveries",
      job: DELIVERY_JOB,
      handle: (job) => deliverWebhook(parts.deliver, job),
      options: {
        concurrency: config.WEBHOOK_CONCURRENCY,
        settings: {
          backoffStrategy: (attemptsMade: number) => retryDelay(attemptsMade, config.WEBHOOK_BACKOFF_BASE_MS),
        },
      },
    }),
    // Cancel-After: each deadline is a delayed job; a run that has ended by then is left alone.
    processor({
      name: "deadlines",
      job: DEADLINE_JOB,
      handle: async (job) => (await parts.lifecycle.cancelAtDeadline(job.data.runId)).kind,
      options: { concurrency: 16 },
    }),
  ];
}

/** Starts a BullMQ worker per processor, on the shared connection and prefix. */
export function startProcessors(list: Processor<unknown>[], redis: RedisClient, prefix: string) {
  return new Map(
    list.map((p) => [
      p.name,
      new Worker(p.job.queue, register(p.job, p.handle), { ...p.options, connection: redis, prefix }),
    ]),
  );
}
