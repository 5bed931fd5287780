import { Queue, type Job, type JobsOptions } from "bullmq";
import type { RedisClient } from "./redis.js";
import {
  CANCEL_CHANNEL,
  DEADLINE_JOB,
  DELIVERY_JOB,
  jobEntries,
  laneOf,
  LEASED_RUN_JOB,
  RUN_JOB,
  RUN_JOBS,
  type DeliveryJob,
  type JobLane,
  type DirectRunJob,
  type InstantRun,
  type LeasedRunJob,
  type JobDefinition,
  type RunJob,
} from "./jobs.js";
import { runEventRecorder, type RunEventSettings } from "./runEvents/index.js";
import { INPUT_KEPT_MAX_BYTES, type Dispatched, type Scheduler, type WaitingRun } from "./scheduler/index.js";

export type RunsQueue = Queue<DirectRunJob>;
export type LeasedRunsQueue = Queue<LeasedRunJob>;
export type DeliveriesQueue = Queue<DeliveryJob>;
export type DeadlinesQueue = Queue<RunJob>;

function queue<T>(job: JobDefinition<T>, connection: RedisClient, prefix: string): Queue<T> {
  const q = new Queue<T>(job.queue, { connection, prefix });
  q.on("error", () => {});
  return q;
}

export const createRunsQueue = (
  connection: RedisClient,
  prefix: string,
  lane: JobLane = "interactive",
): RunsQueue => queue(RUN_JOBS[lane].runs, connection, prefix);
export const createLeasedRunsQueue = (
  connection: RedisClient,
  prefix: string,
  lane: JobLane = "interactive",
): LeasedRunsQueue => queue(RUN_JOBS[lane].leased, connection, prefix);

/** One kind of run queue for each lane: its interactive runs' and its batch items' (jobs.ts RUN_JOBS). */
export type ByLane<Q> = Record<JobLane, Q>;

export const createDeliveriesQueue = (connection: RedisClient, prefix: string): DeliveriesQueue =>
  queue(DELIVERY_JOB, connection, prefix);
export const createDeadlinesQueue = (connection: RedisClient, prefix: string): DeadlinesQueue =>
  queue(DEADLINE_JOB, connection, prefix);

/**
 * Jobs in one round trip. One job alone (the usual batch of a process that is not busy) is added
 * with one script call: addBulk wraps even one in MULTI/EXEC, three commands for Redis to run.
 */
async function addJobs<T>(
  // Spelled out so that a job's name and data are T's, whatever T is.
  q: Queue<unknown, unknown, string, T, unknown, string>,
  entries: ReturnType<typeof jobEntries<T>>,
): Promise<Job<T>[]> {
  const [first] = entries;
  if (entries.length === 1) return [await q.add(first!.name, first!.data, first!.opts)];
  return entries.length ? q.addBulk(entries) : [];
}

/**
 * A batch of runs in one round trip (a group-committed batch of creations, or runs revived by id),
 * into `q`: either lane's runs queue (their jobs differ only in the queue).
 */
export async function enqueueRuns(q: RunsQueue, runs: readonly (DirectRunJob | string)[]): Promise<void> {
  await addJobs(
    q,
    jobEntries(
      RUN_JOB,
      runs.map((run) => ({ data: typeof run === "string" ? { runId: run } : run })),
    ),
  );
}

/** `items`' indexes by lane, each lane's in their order (lanes with none left out). */
function lanesOf<T>(items: readonly T[], batch: (item: T) => boolean | undefined): [JobLane, number[]][] {
  const lanes = new Map<JobLane, number[]>();
  items.forEach((item, i) => {
    const lane = laneOf(batch(item));
    const indexes = lanes.get(lane);
    if (indexes) indexes.push(i);
    else lanes.set(lane, [i]);
  });
  return [...lanes];
}

/**
 * Leased runs' jobs, each in its lane's queue (a round trip per lane), as `entryOf` makes them;
 * resolves to the jobs in `dispatched`'s order.
 */
async function addLeasedJobs(
  q: ByLane<LeasedRunsQueue>,
  dispatched: readonly Dispatched[],
  entryOf: (d: Dispatched) => { data: LeasedRunJob; opts?: JobsOptions },
): Promise<Job<LeasedRunJob>[]> {
  const jobs: Job<LeasedRunJob>[] = [];
  await Promise.all(
    lanesOf(dispatched, (d) => d.batch).map(async ([lane, indexes]) => {
      const added = await addJobs(
        q[lane],
        jobEntries(
          RUN_JOBS[lane].leased,
          indexes.map((i) => entryOf(dispatched[i]!)),
        ),
      );
      indexes.forEach((i, k) => (jobs[i] = added[k]!));
    }),
  );
  return jobs;
}

/**
 * The jobs of runs the scheduler leased a slot to, each in its lane's queue, in the order it leased
 * them (`begun`: those whose work the dispatching worker sent already).
 */
export async function launchRuns(
  q: ByLane<LeasedRunsQueue>,
  dispatched: readonly Dispatched[],
  begun: ReadonlySet<string> = new Set(),
): Promise<void> {
  const at = Date.now();
  await addLeasedJobs(q, dispatched, ({ runId, slot, pool }) => ({
    data: { runId, slot, pool, leasedAt: at, ...(begun.has(runId) && { begun: true }) },
  }));
}

/**
 * A leased run that the dispatching worker executes itself (core's executesWhereLeased) gets its
 * backstop job only once it has executed this long: most runs end before, and writing then
 * removing a job was two of the four Redis commands such a run cost. A worker that dies before
 * leaves its run leased and jobless; the sweeper gives it a job once the lease is
 * LEASED_JOB_GRACE_MS old, well past this.
 */
export const BACKSTOP_AFTER_MS = 1_000;

/**
 * How old a lease may be without its run's job before the sweeper writes one: a dispatcher sends
 * the work to the server before the job, and a run executed where leased has none for its first
 * BACKSTOP_AFTER_MS. Only a worker stalled this long past that could then execute the run beside
 * its taker, as one stalled past RUN_LOCK_MS could with any job.
 */
export const LEASED_JOB_GRACE_MS = 5 * BACKSTOP_AFTER_MS;

/**
 * The jobs of leased runs that the dispatching worker executes itself (core's
 * executesWhereLeased), each due `delayMs` from now: a backstop that any worker takes over if the
 * dispatching one stops pushing it back (a crash). One attempt fewer than a job's: the first is
 * the dispatching worker's own. Resolves to the jobs, in Redis.
 */
export async function backstopRuns(
  q: ByLane<LeasedRunsQueue>,
  dispatched: readonly Dispatched[],
  delayMs: number,
): Promise<Job<LeasedRunJob>[]> {
  const at = Date.now();
  const attempts = Math.max(1, (LEASED_RUN_JOB.options.attempts ?? 1) - 1);
  return addLeasedJobs(q, dispatched, ({ runId, slot, pool }) => ({
    data: { runId, slot, pool, leasedAt: at },
    opts: { delay: delayMs, attempts },
  }));
}

/**
 * A run to admit: into its pool's queue, or (pool null: unlimited capacity) straight to the
 * workers, with what executing it takes when it is instant.
 */
export type AdmittedRun = Omit<WaitingRun, "pool"> & {
  pool: string | null;
  instant?: Omit<InstantRun, "createdAt">;
};

/** What becomes of runs the scheduler leased a slot to: by default, their jobs. */
export type LaunchRuns = (dispatched: Dispatched[]) => Promise<void>;

/**
 * Runs of unlimited models are enqueued, the others wait in the scheduler until a slot is theirs;
 * those that get one at once are launched. `launch`: a worker's dispatcher, which executes them
 * where it leased them when their kind does. Without one (the API), those of kinds executed where
 * leased are handed to a worker by the scheduler's script (handoff.ts), and the others get jobs.
 */
export async function admitRuns(
  queues: Pick<RunQueues, "runs" | "leased">,
  scheduler: Scheduler,
  runs: readonly AdmittedRun[],
  launch?: LaunchRuns,
) {
  const waiting = runs.filter((r): r is WaitingRun => r.pool !== null);
  const direct = runs
    .filter((r) => r.pool === null)
    .map(({ runId, instant, createdAt, priority }) => ({
      batch: priority === "batch",
      job: {
        runId,
        ...(instant &&
          instant.input.length <= INPUT_KEPT_MAX_BYTES && {
            instant: { ...instant, createdAt: createdAt.getTime() },
          }),
      },
    }));
  const [dispatched] = await Promise.all([
    // Untaken, a hand-off list is kept as long as a lease may go jobless: then the sweeper writes
    // its runs' jobs.
    scheduler.enqueue(waiting, launch ? undefined : LEASED_JOB_GRACE_MS),
    ...lanesOf(direct, (d) => d.batch).map(([lane, indexes]) =>
      enqueueRuns(
        queues.runs(lane),
        indexes.map((i) => direct[i]!.job),
      ),
    ),
  ]);
  if (dispatched.length) await (launch ?? ((d) => launchRuns(leasedByLane(queues), d)))(dispatched);
}

/** The leased-runs queue of each lane. */
export const leasedByLane = (queues: Pick<RunQueues, "leased">): ByLane<LeasedRunsQueue> => ({
  interactive: queues.leased("interactive"),
  batch: queues.leased("batch"),
});

export async function enqueueDeliveries(q: DeliveriesQueue, deliveryIds: readonly string[]): Promise<void> {
  await addJobs(
    q,
    jobEntries(
      DELIVERY_JOB,
      deliveryIds.map((deliveryId) => ({ data: { deliveryId } })),
    ),
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

/** The queues the run lifecycle sends work to: runs' jobs in their lane's queues (default: interactive). */
export interface RunQueues {
  runs(lane?: JobLane): RunsQueue;
  leased(lane?: JobLane): LeasedRunsQueue;
  deliveries(): DeliveriesQueue;
  deadlines(): DeadlinesQueue;
}

export interface Producer extends RunQueues {
  enqueueDeliveries(deliveryIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** A process's run queues of both lanes, made as asked for. */
export function laneQueues(connection: RedisClient, prefix: string, ready: () => void = () => {}) {
  const made: { runs: Partial<ByLane<RunsQueue>>; leased: Partial<ByLane<LeasedRunsQueue>> } = {
    runs: {},
    leased: {},
  };
  return {
    runs: (lane: JobLane = "interactive") => {
      ready();
      return (made.runs[lane] ??= createRunsQueue(connection, prefix, lane));
    },
    leased: (lane: JobLane = "interactive") => {
      ready();
      return (made.leased[lane] ??= createLeasedRunsQueue(connection, prefix, lane));
    },
    /** The queues made so far. */
    made: () => [...Object.values(made.runs), ...Object.values(made.leased)],
  };
}

/**
 * The API's handle on the queues, over a fail-fast producer connection. BullMQ's Queue asks Redis
 * for its version on construction and keeps a failed start-up for good, so each Queue is made
 * only once the connection is ready; until then every call fails at once, and the caller falls
 * back on the sweeper.
 */
export function createProducer(connection: RedisClient, prefix: string): Producer {
  const made: {
    deliveries?: DeliveriesQueue;
    deadlines?: DeadlinesQueue;
  } = {};
  const ready = () => {
    if (connection.status !== "ready") throw new Error(`redis is not connected (${connection.status})`);
  };
  const lanes = laneQueues(connection, prefix, ready);
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
    runs: lanes.runs,
    leased: lanes.leased,
    deliveries,
    deadlines,
    close: async () => {
      await Promise.allSettled([...Object.values(made), ...lanes.made()].map((q) => q.close()));
    },
  };
}

export async function publishCancel(redis: RedisClient, prefix: string, runId: string): Promise<void> {
  await redis.publish(CANCEL_CHANNEL.name(prefix), runId);
}

/**
 * What the run lifecycle needs from the queues (packages/use-cases LifecycleQueues), over the
 * caller's queues: the API's fail-fast producer or the worker's own.
 */
export function runTransport(
  redis: RedisClient,
  prefix: string,
  queues: RunQueues,
  events: RunEventSettings,
  scheduler: Scheduler,
  launch?: LaunchRuns,
) {
  const record = runEventRecorder(redis, prefix, events);
  return {
    admitRuns: async (runs: readonly AdmittedRun[]) => admitRuns(queues, scheduler, runs, launch),
    enqueueDeliveries: async (ids: readonly string[]) => enqueueDeliveries(queues.deliveries(), ids),
    recordEvents: record,
    async scheduleDeadlines(deadlines: readonly { runId: string; at: Date }[]) {
      const now = Date.now();
      await queues.deadlines().addBulk(
        jobEntries(
          DEADLINE_JOB,
          deadlines.map(({ runId, at }) => ({
            data: { runId },
            opts: { delay: Math.max(0, at.getTime() - now) },
          })),
        ),
      );
    },
    async stopRun(runId: string) {
      // A leased run's job is left to run: it finds the run ended, stops any work already sent to
      // its slot and gives the slot back (removing it here would leave that work running).
      const results = await Promise.allSettled([
        queues.runs("interactive").remove(runId),
        queues.runs("batch").remove(runId),
        publishCancel(redis, prefix, runId),
        scheduler.remove([runId]),
      ]);
      for (const r of results) if (r.status === "rejected") throw r.reason;
    },
  };
}
