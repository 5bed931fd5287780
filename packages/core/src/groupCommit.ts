// Group commit: many callers' requests applied as one batch, each caller getting its own answer.
// Fewer, larger statements beat more, faster ones: a busy account's row is locked once per batch
// instead of once per run, and one commit (one WAL flush) serves the whole batch.

export interface GroupCommitOptions<I, O> {
  /** Applies a batch; answers[i] is the answer for items[i]. A throw fails every item of the batch. */
  apply(items: I[]): Promise<O[]>;
  /**
   * How long the first item of a batch waits for company (0: until the current I/O callbacks are
   * done; null: not at all, it goes at once when a batch may start, and only items that arrive
   * while batches are being applied gather, for the next one).
   */
  windowMs: number | null;
  /**
   * An item's own window, instead of windowMs: the batch goes when its most hurried item's window
   * has passed (an item with null sends it at once, and the items waiting go with it). For items
   * that may wait longer than others (a patient lane) in one queue, so that their order holds.
   */
  windowOf?(item: I): number | null;
  /** A batch never holds more items; a full batch goes at once. */
  maxBatch: number;
  /** Batches applied at the same time; while they run, arriving items form the next batch. */
  maxInFlight: number;
  /**
   * Items with the same key never share a batch: a later one waits for the next batch, so it
   * sees the earlier one's outcome as if they had been applied one by one.
   */
  keyOf?(item: I): string | undefined;
  /**
   * Batches holding items of the same lane are never applied at the same time; a batch may hold
   * any number of one lane's items. With lane = account, a pipeline never has two of its
   * statements waiting for the same account row: the second would wait for the first's lock and
   * then re-check the rows it locked (EvalPlanQual, which sets up the whole statement's plan
   * again), while its runs could have joined the next batch for free.
   */
  laneOf?(item: I): string;
}

interface Pending<I, O> {
  item: I;
  resolve(answer: O): void;
  reject(error: unknown): void;
}

export interface GroupCommit<I, O> {
  submit(item: I): Promise<O>;
  /** Resolves once every submitted item has its answer. */
  drain(): Promise<void>;
  /** Items waiting plus items in batches being applied. */
  readonly pending: number;
}

export function groupCommit<I, O>(options: GroupCommitOptions<I, O>): GroupCommit<I, O> {
  const { apply, windowMs, windowOf = () => windowMs, maxBatch, maxInFlight, keyOf, laneOf } = options;
  let queue: Pending<I, O>[] = [];
  let inFlight = 0;
  let inFlightItems = 0;
  // Keys of items in batches being applied: their followers wait until those batches are done.
  const busyKeys = new Map<string, number>();
  const busyLanes = new Set<string>();
  // The waiting batch's flush, due at `at` (performance.now()).
  let timer: { cancel(): void; at: number } | undefined;
  let drained: (() => void)[] = [];

  const settleDrain = () => {
    if (queue.length > 0 || inFlight > 0) return;
    const waiting = drained;
    drained = [];
    for (const done of waiting) done();
  };

  const take = (): { batch: Pending<I, O>[]; keys: string[]; lanes: string[] } => {
    if (!keyOf && !laneOf) return { batch: queue.splice(0, maxBatch), keys: [], lanes: [] };
    const batch: Pending<I, O>[] = [];
    const rest: Pending<I, O>[] = [];
    const keys = new Set<string>();
    const lanes = new Set<string>();
    for (const p of queue) {
      const key = keyOf?.(p.item);
      const lane = laneOf?.(p.item);
      const held =
        (key !== undefined && (keys.has(key) || busyKeys.has(key))) ||
        (lane !== undefined && busyLanes.has(lane));
      if (batch.length >= maxBatch || held) {
        rest.push(p);
        continue;
      }
      if (key !== undefined) keys.add(key);
      if (lane !== undefined) lanes.add(lane);
      batch.push(p);
    }
    queue = rest;
    return { batch, keys: [...keys], lanes: [...lanes] };
  };

  const flush = () => {
    timer?.cancel();
    timer = undefined;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const { batch, keys, lanes } = take();
      if (batch.length === 0) break; // everything left waits for a key or lane held by a running batch
      inFlight++;
      inFlightItems += batch.length;
      for (const key of keys) busyKeys.set(key, (busyKeys.get(key) ?? 0) + 1);
      for (const lane of lanes) busyLanes.add(lane);
      apply(batch.map((p) => p.item))
        .then(
          (answers) => batch.forEach((p, i) => p.resolve(answers[i]!)),
          (error: unknown) => batch.forEach((p) => p.reject(error)),
        )
        .finally(() => {
          inFlight--;
          inFlightItems -= batch.length;
          for (const key of keys) {
            const n = busyKeys.get(key)! - 1;
            if (n === 0) busyKeys.delete(key);
            else busyKeys.set(key, n);
          }
          for (const lane of lanes) busyLanes.delete(lane);
          // Whatever arrived meanwhile has already waited for a batch: it goes now.
          if (queue.length > 0) flush();
          settleDrain();
        });
    }
  };

  const schedule = (item: I) => {
    if (inFlight >= maxInFlight) return; // the end of a running batch flushes
    if (queue.length >= maxBatch) return flush();
    const window = windowOf(item);
    if (window === null) return flush();
    const at = performance.now() + window;
    if (timer && timer.at <= at) return;
    timer?.cancel();
    if (window > 0) {
      const t = setTimeout(flush, window);
      timer = { cancel: () => clearTimeout(t), at };
    } else {
      const t = setImmediate(flush);
      timer = { cancel: () => clearImmediate(t), at };
    }
  };

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule(item);
      });
    },
    drain() {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => drained.push(resolve));
    },
    get pending() {
      return queue.length + inFlightItems;
    },
  };
}
