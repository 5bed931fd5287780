/** A value that changes over time and can be awaited: the owner calls notify() after each change. */
export function changes() {
  const waiters = new Set<() => void>();
  return {
    notify() {
      for (const wake of [...waiters]) wake();
    },
    /** Resolves with probe()'s first defined result, re-checked at each change; rejects after timeoutMs. */
    until<T>(probe: () => T | undefined, timeoutMs: number, failure: () => string): Promise<T> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const value = probe();
          if (value === undefined) return;
          cleanup();
          resolve(value);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(failure()));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
