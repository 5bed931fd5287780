// The work a run costs each process, for benchmarks that drive the real service: CPU of the API,
// the worker, the Postgres backends of the benchmark's database and Redis (user and system time,
// from /proc and Redis's own INFO), Postgres transactions, and Redis commands by name. Measured
// between two snapshots and divided by the runs made in between. Near a machine's capacity the
// latency follows the total (a queue for the cores), and unlike latency it hardly moves with the
// machine's mood: a change to the run path shows here first. Linux only (/proc).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** A process's CPU so far, in ms (0 once it is gone: a backend that closed took its time along). */
export function processCpu(pid) {
  try {
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { user: Number(fields[11]) * TICK_MS, sys: Number(fields[12]) * TICK_MS };
  } catch {
    return { user: 0, sys: 0 };
  }
}

/** A process's resident set in MB, from /proc (0 once it has exited). */
export function rssMb(pid) {
  try {
    return (Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4) / 1024;
  } catch {
    return 0;
  }
}

const parseInfo = (text) =>
  Object.fromEntries(
    text
      .split("\r\n")
      .filter((line) => line.includes(":"))
      .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1)]),
  );

/**
 * `db`: a Prisma client of the benchmark's database; `redis`: an ioredis client of the service's
 * Redis; `pids`: the service's processes by name ({ api, worker }).
 */
export function workMeter({ db, redis, pids }) {
  const snapshot = async () => {
    const [backends, [stats], cpu, commands] = await Promise.all([
      db.$queryRaw`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`,
      db.$queryRaw`SELECT xact_commit + xact_rollback AS xacts FROM pg_stat_database WHERE datname = current_database()`,
      redis.info("cpu"),
      redis.info("commandstats"),
    ]);
    const redisCpu = parseInfo(cpu);
    const calls = {};
    for (const [key, value] of Object.entries(parseInfo(commands))) {
      const fields = Object.fromEntries(value.split(",").map((kv) => kv.split("=")));
      calls[key.replace(/^cmdstat_/, "")] = { calls: Number(fields.calls), usec: Number(fields.usec) };
    }
    return {
      processes: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpu(pid)])),
      postgres: new Map(backends.map(({ pid }) => [pid, processCpu(pid)])),
      redis: { user: Number(redisCpu.used_cpu_user) * 1000, sys: Number(redisCpu.used_cpu_sys) * 1000 },
      xacts: Number(stats.xacts),
      calls,
    };
  };

  /** Lines describing the work per run between two snapshots. */
  const report = (before, after, runs) => {
    const per = (ms) => (ms / runs).toFixed(3);
    const delta = (a, b) => ({ user: b.user - a.user, sys: b.sys - a.sys });
    const rows = Object.keys(pids).map((name) => [
      name,
      delta(before.processes[name], after.processes[name]),
    ]);
    // Backends that opened meanwhile count from zero; those gone since are not measured.
    const postgres = { user: 0, sys: 0 };
    for (const [pid, end] of after.postgres) {
      const d = delta(before.postgres.get(pid) ?? { user: 0, sys: 0 }, end);
      postgres.user += d.user;
      postgres.sys += d.sys;
    }
    rows.push(["postgres", postgres], ["redis", delta(before.redis, after.redis)]);
    const total = rows.reduce((sum, [, d]) => sum + d.user + d.sys, 0);
    const commands = Object.entries(after.calls)
      .map(([name, a]) => {
        const b = before.calls[name] ?? { calls: 0, usec: 0 };
        return { name, calls: a.calls - b.calls, usec: a.usec - b.usec };
      })
      .filter((c) => c.calls > 0)
      .sort((x, y) => y.usec - x.usec)
      .slice(0, 8);
    return [
      `CPU ms per run (user + sys): ${rows.map(([name, d]) => `${name} ${per(d.user + d.sys)} (${per(d.user)} + ${per(d.sys)})`).join(", ")}; total ${per(total)}`,
      `Postgres transactions per run ${((after.xacts - before.xacts) / runs).toFixed(2)}; Redis commands per run (calls, µs): ${commands
        .map((c) => `${c.name} ${(c.calls / runs).toFixed(2)}, ${(c.usec / runs).toFixed(0)}`)
        .join("; ")}`,
    ];
  };
  return { snapshot, report };
}
