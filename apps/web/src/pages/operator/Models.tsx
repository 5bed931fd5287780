// The catalogue with each model's queue: importing a Cog or OpenAI-style model, editing a model.
import { useQuery } from "@tanstack/react-query";
import { call, type OperatorModel } from "../../api";
import { DataTable } from "../../table";
import { ErrorMessage, Loading, PageHeader, Time } from "../../ui";
import { ImportForms } from "./ImportForm";
import { useModelEditor } from "./ModelEditor";

function Queue({ model: m }: { model: OperatorModel }) {
  if (!m.queue) return <span className="muted">unlimited</span>;
  return (
    <>
      {m.queue.in_flight} of {m.queue.capacity} busy · {m.queue.queue_length} waiting
      {m.queue.oldest_queued_at ? (
        <div className="muted small">
          oldest since <Time value={m.queue.oldest_queued_at} />
        </div>
      ) : null}
      {m.queue.servers_down.length ? (
        <>
          <div className="badge badge-failed">{m.queue.servers_down.length} down</div>
          <ul className="muted small" aria-label="Servers down">
            {m.queue.servers
              .filter((s) => !s.up)
              .map((s) => (
                <li key={s.url}>
                  <code>{s.url}</code>: {s.state}
                </li>
              ))}
          </ul>
        </>
      ) : null}
    </>
  );
}

export function OperatorModels() {
  const models = useQuery({
    queryKey: ["operator", "models"],
    queryFn: () => call<{ models: OperatorModel[] }>("/operator/models"),
    refetchInterval: 5_000,
  });
  const editor = useModelEditor();
  return (
    <>
      <PageHeader title="Catalogue & queues" />
      <ImportForms />
      {models.isPending ? <Loading /> : null}
      <ErrorMessage error={models.error} />
      {models.data ? (
        <DataTable
          rows={models.data.models}
          rowKey={(m) => m.id}
          rowProps={(m) => ({ "data-model-id": m.id })}
          columns={[
            {
              header: "Model",
              cell: (m) => (
                <>
                  {m.name}
                  <div className="muted small">
                    <code>{m.id}</code>
                  </div>
                </>
              ),
            },
            { header: "Status", cell: (m) => m.status },
            { header: "Price", numeric: true, cell: (m) => `${m.tokens_per_unit} / ${m.unit}` },
            {
              header: "Runs on",
              cell: (m) =>
                m.runner !== "builtin"
                  ? `${m.servers.length} server${m.servers.length === 1 ? "" : "s"} × ${m.concurrency}`
                  : "built-in",
            },
            {
              header: "Queue",
              cell: (m) => (
                <span data-testid="model-queue">
                  <Queue model={m} />
                </span>
              ),
            },
            {
              header: "Actions",
              hiddenHeader: true,
              cell: (m) => (
                <button type="button" className="secondary" onClick={() => editor.edit(m)}>
                  Edit<span className="visually-hidden"> {m.id}</span>
                </button>
              ),
            },
          ]}
        />
      ) : null}
      {editor.dialog}
    </>
  );
}
