import type { Logger } from "@svc/logger";
import {
  LEASED_JOB_GRACE_MS,
  redisClockOffset,
  takeHandedOff,
  type Dispatched,
  type HandedOff,
  type JobLane,
  type RedisClient,
} from "@svc/queue";

/** How long one pop waits (s): the longest a stopping taker takes to notice. */
const POP_WAIT_SECONDS = 1;
/** How often the offset between Redis's clock and this process's is measured again. */
const CLOCK_EVERY_MS = 30_000;

/**
 * An entry this old (ms) is not executed here but given its job: the sweeper gives a jobless
 * lease its job once it is LEASED_JOB_GRACE_MS old, and a run executed here has its backstop job
 * only BACKSTOP_AFTER_MS after its start, so one started later than this could run beside the
 * sweeper's job. (A job is added by the run's id: the sweeper's and this one are one job.)
 */
export const HANDOFF_EXECUTE_WITHIN_MS = LEASED_JOB_GRACE_MS / 2;

/**
 * Takes the runs the API leased in the lanes this worker executes (handoff.ts), one pop at a time
 * on a connection of its own (BLPOP blocks it), and launches each as a run leased here
 * (`launch`: the dispatcher's, which executes it here while this worker takes work and gives it
 * its job otherwise). One popped by a worker that dies before its backstop is a jobless lease: the
 * sweeper gives it its job (LEASED_JOB_GRACE_MS).
 */
export function takeHandOffs(deps: {
  /** The blocked connection (its own). */
  connection: RedisClient;
  /** Any other connection, for Redis's clock. */
  clock: RedisClient;
  prefix: string;
  /** The lanes this worker executes, interactive first (its runs are popped first). */
  lanes: readonly JobLane[];
  launch(dispatched: Dispatched[]): Promise<void>;
  /** Gives runs their jobs (the leased runs' queues). */
  jobs(dispatched: Dispatched[]): Promise<void>;
  logger: Logger;
}): { stop(): Promise<void> } {
  const { logger } = deps;
  let running = true;
  let offset = 0;
  const measure = () =>
    redisClockOffset(deps.clock)
      .then((ms) => (offset = ms))
      .catch((error: unknown) => logger.warn("reading redis's clock failed", { error }));
  const clock = setInterval(() => void measure(), CLOCK_EVERY_MS);
  clock.unref();

  const launch = ({ leasedAt, dispatched }: HandedOff) => {
    const local = Math.round(leasedAt - offset);
    const fresh = Date.now() - local <= HANDOFF_EXECUTE_WITHIN_MS;
    (fresh ? deps.launch : deps.jobs)([{ ...dispatched, leasedAt: local }]).catch((error: unknown) =>
      // Its lease goes jobless: the sweeper gives it its job.
      logger.warn("launching a handed-off run failed", { run_id: dispatched.runId, error }),
    );
  };
  const loop = (async () => {
    await measure();
    let failing = false;
    while (running) {
      try {
        const taken = await takeHandedOff(deps.connection, deps.prefix, deps.lanes, POP_WAIT_SECONDS);
        failing = false;
        if (taken) launch(taken);
      } catch (error) {
        if (!running) break;
        // Redis away: said once until a pop succeeds again; the connection reconnects by itself.
        if (!failing) logger.warn("taking handed-off runs failed", { error });
        failing = true;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  return {
    async stop() {
      running = false;
      clearInterval(clock);
      // The pop under way ends within its wait; one kept by a Redis that is away is dropped.
      await Promise.race([loop, new Promise((r) => setTimeout(r, (POP_WAIT_SECONDS + 1) * 1_000))]);
      deps.connection.disconnect();
    },
  };
}
