import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { call, scoped, type FileObject, type RunDetail } from "../api";
import { useConsole } from "../session";
import { ErrorMessage, isActive, LoadFailed, Loading, PageHeader, StatusBadge, Time } from "../ui";
import { Outputs } from "./Outputs";

export function RunPage() {
  const { runId = "" } = useParams();
  const { mode } = useConsole();
  const queryClient = useQueryClient();
  const run = useQuery({
    queryKey: ["scoped", mode, "run", runId],
    queryFn: () => call<RunDetail>(scoped(mode, `/runs/${encodeURIComponent(runId)}/detail`)),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.status) ? 1_000 : false),
  });
  const cancel = useMutation({
    mutationFn: () => call(scoped(mode, `/runs/${encodeURIComponent(runId)}/cancel`), { method: "POST" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["scoped", mode, "run", runId] }),
  });
  if (run.isPending) return <Loading what="Loading the run" />;
  if (run.isError) return <LoadFailed title="Run" error={run.error} back={["/runs", "Back to runs"]} />;
  const r = run.data;
  return (
    <>
      <PageHeader title={`Run ${r.run_id}`}>
        {isActive(r.status) ? (
          <button
            type="button"
            className="danger"
            onClick={() => cancel.mutate()}
            disabled={cancel.isPending}
          >
            Cancel run
          </button>
        ) : null}
      </PageHeader>
      <ErrorMessage error={cancel.error} />
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd aria-live="polite">
            <StatusBadge status={r.status} />
          </dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd>
            <Link to={`/models/${r.model_id}`}>{r.model_id}</Link>
          </dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>
            {r.tokens_charged === null
              ? `${r.estimated_tokens} reserved (estimate)`
              : `${r.tokens_charged} charged of ${r.estimated_tokens} estimated`}
            {r.mode === "test" ? " · test run, never charged" : ""}
          </dd>
        </div>
        {r.api !== "native" ? (
          <div>
            <dt>Made through</dt>
            <dd>{r.api === "replicate" ? "Replicate's API (/replicate/v1)" : "OpenAI's API (/openai/v1)"}</dd>
          </div>
        ) : null}
        <div>
          <dt>Ledger</dt>
          <dd>
            <Link to={`/usage?run_id=${r.run_id}`}>Entries of this run</Link>
          </dd>
        </div>
      </dl>

      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <ol className="timeline">
          <Step label="Queued" at={r.created_at} />
          <Step label="Started" at={r.started_at} />
          {r.canceled_at ? <Step label="Canceled" at={r.canceled_at} /> : null}
          {r.completed_at && !r.canceled_at ? (
            <Step label={r.status === "FAILED" ? "Failed" : "Completed"} at={r.completed_at} />
          ) : null}
        </ol>
      </section>

      {r.error ? (
        <section aria-labelledby="error-title" className="error">
          <h2 id="error-title">Error</h2>
          <p>
            <code>{r.error.code}</code> {r.error.message}
          </p>
        </section>
      ) : null}

      {r.output ? (
        <section aria-labelledby="output-title">
          <h2 id="output-title">Output</h2>
          <Outputs output={r.output} />
        </section>
      ) : null}

      <section aria-labelledby="input-title">
        <h2 id="input-title">Input</h2>
        <InputFiles input={r.input} />
        <pre className="code">{JSON.stringify(r.input, null, 2)}</pre>
      </section>
    </>
  );
}

function Step({ label, at }: { label: string; at: string | null }) {
  return (
    <li className={at ? "done" : "pending"}>
      <span className="step-label">{label}</span>{" "}
      {at ? <Time value={at} /> : <span className="muted">not yet</span>}
    </li>
  );
}

const FILE_ID = /^file_[0-9A-Za-z]{22}$/;

/** The run's input files as media (an image, a video or audio player), each by its field. */
function InputFiles({ input }: { input: Record<string, unknown> }) {
  const files = Object.entries(input).filter((e): e is [string, string] => FILE_ID.test(String(e[1])));
  if (!files.length) return null;
  return (
    <div className="outputs">
      {files.map(([field, id]) => (
        <InputFile key={field} field={field} id={id} />
      ))}
    </div>
  );
}

function InputFile({ field, id }: { field: string; id: string }) {
  const { mode } = useConsole();
  const file = useQuery({
    queryKey: ["scoped", mode, "file", id],
    queryFn: () => call<FileObject>(scoped(mode, `/files/${id}`)),
    retry: false,
  });
  if (file.isPending) return null;
  if (file.isError) return <p className="muted">{field}: the file was deleted or has expired.</p>;
  const src = `/console/api${scoped(mode, `/files/${id}/content`)}`;
  const type = file.data.content_type;
  const label = `Input ${field}`;
  if (type.startsWith("image/")) return <img src={src} alt={label} className="media" />;
  if (type.startsWith("video/")) return <video src={src} controls className="media" aria-label={label} />;
  return <audio src={src} controls className="media" aria-label={label} />;
}
