import { spawn, type ChildProcess } from "node:child_process";
import { repoPaths } from "@svc/db";
import { changes } from "./changes.js";
import { TEST_REDIS_URL, TEST_SECRETS_KEY } from "./redis.js";

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

/**
 * Runs a built app as a real process, as operators start it (the API through its launcher,
 * apps/api/bin/api.sh, which execs node: the child is the node process), and collects its JSON
 * log lines.
 */
export function spawnApp(name: "api" | "worker", env: Record<string, string>): SpawnedApp {
  const [command, args] =
    name === "api"
      ? ["sh", [`${repoPaths.root}apps/api/bin/api.sh`]]
      : [process.execPath, [`${repoPaths.root}apps/worker/dist/main.js`]];
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? "", NODE: process.execPath, ...env },
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

/**
 * The environment every API or worker process of a test needs: its database, Redis and queue
 * prefix, the shared secrets key, private webhook URLs allowed (receivers run on 127.0.0.1), and
 * no worker metrics server (several workers run at once).
 */
export function serviceEnv(databaseUrl: string, prefix: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    SECRETS_KEY: TEST_SECRETS_KEY,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    METRICS_PORT: "0",
  };
}

/** SIGTERM to each app still running, then waits for every one to exit. */
export async function stopApps(...apps: (SpawnedApp | undefined)[]): Promise<void> {
  const running = apps.filter(
    (app): app is SpawnedApp => !!app && app.child.exitCode === null && app.child.signalCode === null,
  );
  for (const app of running) app.child.kill("SIGTERM");
  await Promise.all(running.map((app) => app.exited));
}
