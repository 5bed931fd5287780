// pnpm bench:runs [-- REPS=2 DUR=10 CONN=50 N=2000 as environment]
// The hot path against the plain floor implementation, back to back on this machine in one run
// (shared/perf/side_by_side.sh, next to this checkout): creation alone, API + worker on the no-op
// model (acme/echo), and the worker draining a backlog, then their ratios. Then the open-loop
// latency at RATE creations/s (shared/perf/openloop.sh). Needs a built checkout (pnpm build).
// Traffic goes to 127.0.0.1 only, bounded in time and count.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const perf = fileURLToPath(new URL("../../../shared/perf/", import.meta.url));
if (!existsSync(`${perf}side_by_side.sh`)) {
  console.error(`the floor benchmark is not at ${perf}: it ships in shared/, beside the checkout`);
  process.exit(1);
}
for (const script of ["side_by_side.sh", "openloop.sh"]) {
  console.log(`== ${script}`);
  const run = spawnSync("bash", [`${perf}${script}`], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
