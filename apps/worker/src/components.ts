// The worker as a list of components, declared in the order they start and stopped in reverse:
// what a component rests on (connections, queues, the dispatcher) outlives it. A component whose
// stop runs out of time abandons the rest (the process exits, and what it held lapses to other
// workers), as a graceful close past its grace period must.
import type { Logger } from "@svc/logger";

/** What a component's stop answers when it could not stop in time: leave the rest as they are. */
export const ABANDON = Symbol("abandon");
type Stop = () => unknown;

export class Components {
  private readonly started: { name: string; stop: Stop }[] = [];
  private stopping: Promise<boolean> | undefined;

  constructor(private readonly logger: Logger) {}

  /** A component started by now, and how it stops. */
  add(name: string, stop: Stop): void {
    this.started.push({ name, stop });
  }

  /**
   * Starts a component; if that fails, stops the ones started before it (in reverse) and throws.
   * Its stop is what `start` answers.
   */
  async start(name: string, start: () => Promise<Stop> | Stop): Promise<void> {
    let stop: Stop;
    try {
      stop = await start();
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.add(name, stop);
  }

  /** Names in start order. */
  names(): string[] {
    return this.started.map((c) => c.name);
  }

  /**
   * Stops every component, the last started first; once only (a second call waits for the first).
   * True when all stopped, false when one abandoned the rest. A stop that fails is logged and the
   * next one goes on.
   */
  stop(): Promise<boolean> {
    this.stopping ??= (async () => {
      for (const { name, stop } of [...this.started].reverse()) {
        try {
          if ((await stop()) === ABANDON) return false;
          this.logger.debug("worker component stopped", { component: name });
        } catch (error) {
          this.logger.warn("worker component failed to stop", { component: name, error });
        }
      }
      return true;
    })();
    return this.stopping;
  }
}

/** `work`, or ABANDON when it has not finished within `ms`. */
export async function withinGrace(work: Promise<unknown>, ms: number): Promise<typeof ABANDON | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof ABANDON>((resolve) => {
    timer = setTimeout(() => resolve(ABANDON), ms);
  });
  try {
    return await Promise.race([work.then(() => undefined), expired]);
  } finally {
    clearTimeout(timer);
  }
}
