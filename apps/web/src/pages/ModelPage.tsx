import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link, useParams } from "react-router";
import { call, scoped, uploadFile, type ApiKey, type ModelDetail, type RunDetail } from "../api";
import { SchemaForm, initialValues, toInput } from "../schemaForm";
import { useConsole } from "../session";
import { CopyButton, ErrorMessage, isActive, LoadFailed, Loading, PageHeader, StatusBadge } from "../ui";
import { LorasPicker, type PickedLora } from "./LorasPicker";
import { Outputs } from "./Outputs";

export function ModelPage() {
  const modelId = useParams()["*"] ?? "";
  const { mode } = useConsole();
  const model = useQuery({
    queryKey: ["scoped", mode, "model", modelId],
    queryFn: () =>
      call<ModelDetail>(scoped(mode, `/models/${modelId.split("/").map(encodeURIComponent).join("/")}`)),
    // The queue's figures move: read again every few seconds while the page is open.
    refetchInterval: 3_000,
  });
  if (model.isPending) return <Loading what="Loading the model" />;
  if (model.isError) return <LoadFailed title="Model" error={model.error} back={["/models", "All models"]} />;
  return <Playground key={`${mode}:${modelId}`} model={model.data} />;
}

/** The model's queue now: runs executing against its capacity, runs waiting, a typical run's time. */
function QueueFigures({ model }: { model: ModelDetail }) {
  const p50 = model.run_time_p50_ms;
  return (
    <dl className="figures" aria-label="Queue">
      <div>
        <dt>Running now</dt>
        <dd>{model.capacity === null ? "no limit" : `${model.in_flight ?? 0} of ${model.capacity}`}</dd>
      </div>
      <div>
        <dt>Waiting</dt>
        <dd>{model.queue_length ?? "unknown"}</dd>
      </div>
      <div>
        <dt>Typical run</dt>
        <dd>{p50 === null ? "no runs yet" : `${(p50 / 1000).toFixed(1)} s`}</dd>
      </div>
    </dl>
  );
}

/** The same run from code: curl and the TypeScript SDK, with the form's input. */
function Snippets({ model, input }: { model: ModelDetail; input: Record<string, unknown> }) {
  const origin = window.location.origin;
  const curl = `curl -X POST ${origin}/api/v1/models/${model.id}/run \\
  -H "Authorization: Bearer $SVC_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '${JSON.stringify({ input }).replaceAll("'", "'\\''")}'`;
  const sdk = `import { ModelRunClient } from "@svc/sdk";

const client = new ModelRunClient({ apiKey: process.env.SVC_API_KEY!, baseUrl: "${origin}" });
const run = await client.run("${model.id}", { input: ${JSON.stringify(input, null, 2).replaceAll("\n", "\n  ")} });
console.log(run.output);`;
  return (
    <section aria-labelledby="snippets-title">
      <h2 id="snippets-title">The same run from code</h2>
      <h3>curl</h3>
      <pre className="code" data-testid="curl-snippet">
        {curl}
      </pre>
      <CopyButton text={curl} label="Copy curl" />
      <h3>TypeScript SDK</h3>
      <pre className="code">{sdk}</pre>
      <CopyButton text={sdk} label="Copy SDK snippet" />
    </section>
  );
}

function Playground({ model }: { model: ModelDetail }) {
  const { mode } = useConsole();
  // A model that takes LoRAs: its loras field is picked from your weights, not typed.
  const { loras: loraField, ...fields } = model.input_schema.properties ?? {};
  const formSchema = useMemo(() => ({ ...model.input_schema, properties: fields }), [model.input_schema]);
  const [values, setValues] = useState(() => initialValues(formSchema));
  const [loras, setLoras] = useState<PickedLora[]>([]);
  const [keyId, setKeyId] = useState("");
  const [runId, setRunId] = useState<string | null>(null);
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => call<{ keys: ApiKey[] }>("/keys") });
  const usable = (keys.data?.keys ?? []).filter((k) => k.mode === mode && !k.revoked_at);
  useEffect(() => {
    if (!usable.some((k) => k.id === keyId)) setKeyId(usable[0]?.id ?? "");
  }, [usable, keyId]);
  const input = useMemo(
    () => ({ ...toInput(formSchema, values), ...(loras.length && { loras }) }),
    [formSchema, values, loras],
  );
  const start = useMutation({
    mutationFn: () =>
      call<{ run_id: string }>(scoped(mode, `/models/${model.id}/run`), {
        method: "POST",
        body: { input },
        headers: { "X-Api-Key-Id": keyId },
      }),
    onSuccess: (run) => setRunId(run.run_id),
  });
  const run = useQuery({
    queryKey: ["scoped", mode, "run", runId],
    queryFn: () => call<RunDetail>(scoped(mode, `/runs/${runId}/detail`)),
    enabled: runId !== null,
    refetchInterval: (q) => (!q.state.data || isActive(q.state.data.status) ? 750 : false),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };

  return (
    <>
      <PageHeader title={model.name} />
      <p className="lead">{model.description}</p>
      <p className="muted">
        <code>{model.id}</code> · {model.pricing.description}
      </p>
      <QueueFigures model={model} />
      <div className="playground">
        <form onSubmit={submit} className="card" aria-labelledby="form-title">
          <h2 id="form-title">Input</h2>
          <SchemaForm
            schema={formSchema}
            values={values}
            onChange={setValues}
            upload={async (file) => (await uploadFile(mode, file)).id}
          />
          {loraField ? <LorasPicker field={loraField} value={loras} onChange={setLoras} /> : null}
          <label>
            Run with key ({mode})
            <select value={keyId} onChange={(e) => setKeyId(e.target.value)} required>
              {usable.length === 0 ? <option value="">No active {mode} key</option> : null}
              {usable.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name || "unnamed"} ({k.prefix})
                </option>
              ))}
            </select>
          </label>
          {keys.data && usable.length === 0 ? (
            <p className="small">
              Runs are attributed to an API key: <Link to="/keys">create a {mode} key</Link> first.
            </p>
          ) : null}
          <ErrorMessage error={start.error} />
          <button type="submit" disabled={start.isPending || !keyId}>
            {start.isPending ? "Starting…" : "Run"}
          </button>
        </form>
        <section className="card result" aria-labelledby="result-title" aria-live="polite">
          <h2 id="result-title">Result</h2>
          {!runId ? <p className="muted">Start a run to see its result here.</p> : null}
          {run.data ? (
            <>
              <p>
                <StatusBadge status={run.data.status} />{" "}
                <Link to={`/runs/${run.data.run_id}`}>
                  <code>{run.data.run_id}</code>
                </Link>
                {run.data.tokens_charged !== null ? ` · ${run.data.tokens_charged} tokens charged` : ""}
              </p>
              {run.data.error ? (
                <p className="error" role="alert">
                  <code>{run.data.error.code}</code> {run.data.error.message}
                </p>
              ) : null}
              {run.data.output ? <Outputs output={run.data.output} /> : null}
            </>
          ) : null}
          <ErrorMessage error={run.error} />
        </section>
      </div>
      <Snippets model={model} input={input} />
    </>
  );
}
