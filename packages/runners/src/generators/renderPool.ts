import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import type { RenderTask } from "./render.worker.js";

export type { RenderTask };

export interface RenderPool {
  /** The file's bytes, made on a worker thread; rejects with the signal's reason on abort. */
  render(task: RenderTask, signal: AbortSignal): Promise<Uint8Array>;
  close(): Promise<void>;
}

function workerFile(): string {
  const beside = new URL("./render.worker.js", import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside.href;
  // Loaded from the TypeScript sources (the tests): threads need JavaScript, so they load the
  // built copy, which `pnpm build` makes before any test runs.
  return new URL("../../dist/generators/render.worker.js", import.meta.url).href;
}

/** A pool of `threads` worker threads (0: one per core), started on first use. */
export function createRenderPool(threads = 0): RenderPool {
  let pool: Piscina | undefined;
  return {
    async render(task, signal) {
      pool ??= new Piscina({
        filename: workerFile(),
        maxThreads: threads > 0 ? threads : availableParallelism(),
        minThreads: 1,
        idleTimeout: 30_000,
      });
      try {
        return await pool.run(task, { signal });
      } catch (error) {
        // Piscina rejects with its own AbortError; callers expect the signal's reason.
        if (signal.aborted) throw signal.reason;
        throw error;
      }
    },
    async close() {
      await pool?.destroy();
    },
  };
}
