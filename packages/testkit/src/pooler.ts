import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitFor } from "./wait.js";

/** Debian's PgBouncer (package pgbouncer; scripts/test.sh installs it when it is missing). */
export const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? "/usr/sbin/pgbouncer";

/**
 * When set to "transaction", testkit's service runs its API and worker processes behind a
 * PgBouncer of its own in transaction pooling mode (the jest project tests/e2e/jest.pooled.config.js).
 */
export const testPooling = (): "transaction" | undefined =>
  process.env.TEST_DATABASE_POOLING === "transaction" ? "transaction" : undefined;

export interface PgBouncer {
  /** `directUrl` with its host and port replaced by the pooler's. */
  urlFor(directUrl: string): string;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer in front of the Postgres of `directUrl`, on a free port, in transaction mode
 * (the mode of managed poolers): every database is reachable through it, each transaction may run
 * on another server connection.
 */
export async function startPgBouncer(directUrl: string): Promise<PgBouncer> {
  const target = new URL(directUrl);
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "svc-pgbouncer-"));
  const user = decodeURIComponent(target.username || "postgres");
  await writeFile(join(dir, "users.txt"), `"${user}" ""\n`);
  await writeFile(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 2000",
      "default_pool_size = 20",
      "ignore_startup_parameters = extra_float_digits",
      "",
    ].join("\n"),
  );
  // PgBouncer refuses to run as root; it then needs a user to switch to, who reads its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chmod(dir, 0o755);
  const child: ChildProcess = spawn(
    PGBOUNCER_BIN,
    [...(asRoot ? ["-u", "postgres"] : []), join(dir, "pgbouncer.ini")],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${stderr}`);
        return listening();
      },
      { what: "pgbouncer listening" },
    );
  } catch (error) {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    urlFor(url) {
      const pooled = new URL(url);
      pooled.hostname = "127.0.0.1";
      pooled.port = String(port);
      return pooled.toString();
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGINT"); // immediate shutdown
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
