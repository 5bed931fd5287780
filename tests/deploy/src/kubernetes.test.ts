import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseAllDocuments } from "yaml";
import { apiEnvSchema, workerEnvSchema } from "@svc/config";

// deploy/kubernetes (a kustomize base) against the Kubernetes and KEDA schemas
// (kubernetes-models' validators), and against the code it runs: variables, ports, probes, grace
// periods and metric names must be the ones the processes have.

const root = join(import.meta.dirname, "../../..");
const base = join(root, "deploy/kubernetes");

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [key: string]: unknown;
}

const yamlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    .map((f) => join(dir, f));

const load = (file: string): Manifest[] =>
  parseAllDocuments(readFileSync(file, "utf8")).map((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    return doc.toJS() as Manifest;
  });

const files = [...yamlFiles(base), ...yamlFiles(join(base, "examples"))];
const manifests = files.flatMap((file) => load(file).map((m) => ({ file, m })));
const inBase = manifests.filter(({ file }) => !file.includes("/examples/")).map(({ m }) => m);
const find = (kind: string, name: string) => {
  const m = inBase.find((x) => x.kind === kind && x.metadata.name === name);
  if (!m) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return m;
};

/** The kubernetes-models class of a manifest's kind, by its apiVersion. */
async function modelOf({ apiVersion, kind }: Manifest) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const path =
    group === "keda.sh"
      ? `@kubernetes-models/keda/keda.sh/${version}/${kind}`
      : `kubernetes-models/${group || "v1"}/${group ? `${version}/` : ""}${kind}`;
  const module = (await import(path)) as Record<string, new (data: unknown) => { validate(): void }>;
  return module[kind]!;
}

interface Container {
  name: string;
  command?: string[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
}
const podOf = (m: Manifest) =>
  (m.spec as { template: { spec: { containers: Container[]; terminationGracePeriodSeconds?: number } } })
    .template.spec;

/**
 * The source a built script comes from: an app's dist/main.js is the bundle its build makes of
 * src/entry.ts (scripts/bundle.mjs); any other dist file is tsc's output of its src file.
 */
function sourceOf(script: string): string {
  const app = script.slice(0, script.indexOf("/dist/"));
  const build: string =
    JSON.parse(readFileSync(join(root, app, "package.json"), "utf8")).scripts?.build ?? "";
  if (script.endsWith("/dist/main.js") && build.includes("scripts/bundle.mjs")) return `${app}/src/entry.ts`;
  return script.replace("/dist/", "/src/").replace(/\.js$/, ".ts");
}

describe("deploy/kubernetes", () => {
  it.each(
    manifests.map(({ file, m }) => [`${file.slice(base.length + 1)}: ${m.kind} ${m.metadata.name}`, m]),
  )("when %s is checked against its schema, then it is valid", async (_name, m) => {
    const Model = await modelOf(m as Manifest);
    expect(() => new Model(m).validate()).not.toThrow();
  });

  it("when a manifest breaks its schema, then the validator says where (the check can fail)", async () => {
    const api = structuredClone(find("Deployment", "svc-api"));
    podOf(api).containers[0]!.ports = [{ name: "http", containerPort: "3000" as unknown as number }];
    const Model = await modelOf(api);
    expect(() => new Model(api).validate()).toThrow(/containerPort must be integer/);
  });

  it("when the kustomization is read, then it lists every manifest of the base and nothing else", () => {
    const [kustomization] = load(join(base, "kustomization.yaml")) as unknown as { resources: string[] }[];
    expect([...kustomization!.resources].sort()).toEqual(
      yamlFiles(base)
        .map((f) => f.slice(base.length + 1))
        .sort(),
    );
  });

  it("when a container is given variables, then each is one the service reads", () => {
    const known = new Set([...Object.keys(apiEnvSchema.shape), ...Object.keys(workerEnvSchema.shape)]);
    const named = [
      ...Object.keys(find("ConfigMap", "svc-config").data ?? {}),
      ...inBase
        .filter((m) => m.kind === "Deployment" || m.kind === "Job")
        .flatMap((m) => podOf(m).containers.flatMap((c) => (c.env ?? []).map((e) => e.name))),
    ];
    expect(named.filter((name) => !known.has(name))).toEqual([]);
    // The configuration parses as each process would read it (Secret values stand in).
    const data = find("ConfigMap", "svc-config").data!;
    const secrets = {
      DATABASE_URL: "postgresql://svc@pgbouncer:6432/svc",
      SECRETS_KEY: Buffer.alloc(32).toString("base64"),
    };
    expect(() => apiEnvSchema.parse({ ...data, ...secrets })).not.toThrow();
    expect(() => workerEnvSchema.parse({ ...data, ...secrets })).not.toThrow();
  });

  it("when pods start, then their commands exist, their secrets are referenced (never committed) and they read the shared configuration", () => {
    expect(inBase.filter((m) => m.kind === "Secret")).toEqual([]);
    for (const m of inBase.filter((x) => x.kind === "Deployment" || x.kind === "Job")) {
      for (const c of podOf(m).containers) {
        expect(c.envFrom).toEqual([
          { configMapRef: { name: "svc-config" } },
          { secretRef: { name: "svc-secrets" } },
        ]);
        const command = (c.command ?? []).join(" ");
        // A launcher (apps/api/bin/api.sh) names the built script it execs, next to it.
        const launched = (command.match(/\S+\/bin\/\S+\.sh/g) ?? []).flatMap((launcher) => {
          const text = readFileSync(join(root, launcher), "utf8");
          return (text.match(/\.\.\/dist\/\S+?\.js/g) ?? []).map((rel) =>
            relative(root, join(root, dirname(launcher), rel)),
          );
        });
        const scripts = [...(command.match(/\S+\/dist\/\S+\.js/g) ?? []), ...launched];
        expect(scripts.length).toBeGreaterThan(0);
        for (const script of scripts) expect(existsSync(join(root, sourceOf(script)))).toBe(true);
      }
    }
  });

  it("when Kubernetes probes and stops the pods, then it asks the paths and ports the processes serve and waits out their grace", () => {
    const config = find("ConfigMap", "svc-config").data!;
    const check = (name: string, expected: { ready: string; live: string; port: string }) => {
      const pod = podOf(find("Deployment", name));
      const c = pod.containers[0]!;
      const port = c.ports!.find((p) => p.name === expected.port)!;
      expect([c.readinessProbe?.httpGet?.path, c.livenessProbe?.httpGet?.path]).toEqual([
        expected.ready,
        expected.live,
      ]);
      expect([c.readinessProbe?.httpGet?.port, c.livenessProbe?.httpGet?.port]).toEqual([
        expected.port,
        expected.port,
      ]);
      const grace = Number(c.env!.find((e) => e.name === "SHUTDOWN_GRACE_MS")!.value);
      // The process's own grace, then its exit, before Kubernetes would SIGKILL it.
      expect(pod.terminationGracePeriodSeconds! * 1000).toBeGreaterThanOrEqual(grace + 5_000);
      return { port: port.containerPort, grace, c };
    };
    const api = check("svc-api", { ready: "/readyz", live: "/healthz", port: "http" });
    expect(api.port).toBe(Number(api.c.env!.find((e) => e.name === "PORT")!.value));
    expect(Number(config.SHUTDOWN_DRAIN_MS)).toBeLessThan(api.grace);
    const worker = check("svc-worker", { ready: "/readyz", live: "/healthz", port: "metrics" });
    expect(worker.port).toBe(Number(config.METRICS_PORT));
    expect(worker.c.ports!.find((p) => p.name === "cog-callback")!.containerPort).toBe(
      Number(config.COG_CALLBACK_PORT),
    );
    const workerService = find("Service", "svc-worker");
    expect(config.COG_CALLBACK_URL).toBe(
      `http://${workerService.metadata.name}:${(workerService.spec!.ports as { name: string; port: number }[]).find((p) => p.name === "cog-callback")!.port}`,
    );
    // The probes' paths are routes of the API and of the worker's metrics server.
    const apiRoutes = readFileSync(join(root, "apps/api/src/routes/operations.ts"), "utf8");
    expect(apiRoutes).toContain('path: "/readyz"');
    expect(apiRoutes).toContain('path: "/healthz"');
    const workerServer = readFileSync(join(root, "apps/worker/src/metrics.ts"), "utf8");
    expect(workerServer).toContain('"/readyz"');
    expect(workerServer).toContain('"/healthz"');
  });

  it("when KEDA scales, then it targets workloads that exist, on series the workers export", () => {
    const exported = readFileSync(join(root, "apps/worker/src/metrics.ts"), "utf8");
    const scaled = manifests.filter(({ m }) => m.kind === "ScaledObject");
    expect(scaled.map(({ m }) => m.metadata.name).sort()).toEqual(["sdxl-servers", "svc-worker"]);
    for (const { file, m } of scaled) {
      const spec = m.spec as {
        scaleTargetRef: { kind: string; name: string };
        triggers: { type: string; metadata: { query?: string } }[];
      };
      // A base object scales a base workload; an example, one of its own file.
      const pool = file.includes("/examples/")
        ? manifests.filter((x) => x.file === file).map((x) => x.m)
        : inBase;
      const target = pool.find(
        (x) => x.kind === spec.scaleTargetRef.kind && x.metadata.name === spec.scaleTargetRef.name,
      );
      expect(target).toBeDefined();
      for (const series of spec.triggers.flatMap((t) => t.metadata.query?.match(/svc_[a-z_]+/g) ?? []))
        expect(exported).toContain(`"${series}"`);
    }
  });

  it("when pods may be disrupted, then a budget keeps an API and a worker up", () => {
    for (const name of ["svc-api", "svc-worker"]) {
      const pdb = find("PodDisruptionBudget", name);
      const selector = (pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector
        .matchLabels;
      const deployment = find("Deployment", name);
      expect(
        (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
      ).toEqual(selector);
    }
  });
});
