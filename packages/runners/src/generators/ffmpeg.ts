import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import type { Readable } from "node:stream";

/** The ffmpeg binary shipped in the @ffmpeg-installer npm package for this platform. */
export function bundledFfmpeg(): string {
  const require = createRequire(import.meta.url);
  return (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
}

export interface FfmpegJob {
  /** What ffmpeg writes to stdout (when the arguments send output to pipe:1). */
  stdout: Readable;
  /** Resolves once ffmpeg has read all input and exited cleanly. */
  done: Promise<void>;
}

/**
 * ffmpeg as a child process (its CPU work is off this process's event loop): `input` chunks are
 * written to its stdin with backpressure. An abort kills it and rejects `done` with the reason.
 */
export function runFfmpeg(
  binary: string,
  args: string[],
  input: AsyncIterable<Uint8Array>,
  signal: AbortSignal,
): FfmpegJob {
  const child = spawn(binary, ["-hide_banner", "-loglevel", "error", "-nostdin", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    signal,
    killSignal: "SIGKILL",
  });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (errors.length < 4_096) errors += chunk.toString();
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on("error", (error) => reject(signal.aborted ? signal.reason : error));
    child.on("close", (code) =>
      signal.aborted
        ? reject(signal.reason)
        : code === 0
          ? resolve()
          : reject(new Error(`ffmpeg exited with ${code}: ${errors.trim().slice(0, 500)}`)),
    );
  });
  exited.catch(() => {}); // awaited by `done`; an early abort must not leave it unhandled
  // A write after ffmpeg has gone fails with EPIPE: its exit status says why, not the pipe.
  child.stdin.on("error", () => {});
  let inputError: unknown;
  const fed = (async () => {
    try {
      for await (const chunk of input) {
        if (child.stdin.destroyed) break;
        if (!child.stdin.write(chunk)) await once(child.stdin, "drain", { signal });
      }
    } catch (error) {
      // Input that fails halfway must not become a shorter file that looks complete. (A pipe
      // that failed is ffmpeg's doing, and its exit status tells.)
      if (!child.stdin.errored && !signal.aborted) {
        inputError = error;
        child.kill("SIGKILL");
      }
    } finally {
      child.stdin.end();
    }
  })();
  const done = (async () => {
    await fed;
    signal.throwIfAborted();
    try {
      await exited;
    } catch (error) {
      throw inputError ?? error;
    }
    if (inputError) throw inputError;
  })();
  return { stdout: child.stdout, done };
}
