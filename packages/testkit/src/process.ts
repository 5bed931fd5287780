import { spawn, type ChildProcess } from "node:child_process";
import { repoPaths } from "@svc/db";
import { changes } from "./changes.js";

export interface SpawnedApp {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  /** Resolves with the first log line that matches, or rejects after timeoutMs. */
  waitForLine(
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Runs a built app (apps/<name>/dist/main.js) as a real process and collects its JSON log lines. */
export function spawnApp(name: "api" | "worker", env: Record<string, string>): SpawnedApp {
  const child = spawn(process.execPath, [`${repoPaths.root}apps/${name}/dist/main.js`], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const output = changes();
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const part of parts.filter(Boolean)) {
      try {
        lines.push(JSON.parse(part));
      } catch {
        lines.push({ message: part });
      }
    }
    output.notify();
  });
  child.stderr!.on("data", (chunk: Buffer) => lines.push({ stderr: chunk.toString() }));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    waitForLine(match, timeoutMs = 20_000) {
      return output.until(
        () => lines.find(match),
        timeoutMs,
        () =>
          `no matching log line within ${timeoutMs} ms; got:\n${lines.map((l) => JSON.stringify(l)).join("\n")}`,
      );
    },
  };
}
