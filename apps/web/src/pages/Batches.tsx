// Batches (issue #61): the account's batches in this mode, with their progress (refreshed while
// any is open), counts and tokens, their results and errors to download as JSON Lines, and a
// cancel. Batches are made through the API (ours, or OpenAI's Batch API).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call, scoped, type Batch } from "../api";
import { useConsole } from "../session";
import { DataTable, type Column } from "../table";
import { Confirm, Empty, ErrorMessage, Loading, number, PageHeader, Time } from "../ui";

const ENDED = new Set(["completed", "failed", "expired", "canceled"]);

function progressOf(b: Batch) {
  const done = b.counts.completed + b.counts.failed;
  return (
    <span className="progress-cell">
      <progress aria-label={`Progress of ${b.id}`} max={Math.max(1, b.counts.total)} value={done} />{" "}
      {number.format(done)} / {number.format(b.counts.total)}
      {b.counts.failed ? <span className="muted"> · {number.format(b.counts.failed)} failed</span> : null}
    </span>
  );
}

export function Batches() {
  const { mode } = useConsole();
  const queryClient = useQueryClient();
  const [canceling, setCanceling] = useState<Batch | null>(null);
  const batches = useQuery({
    queryKey: ["scoped", mode, "batches"],
    queryFn: () => call<{ batches: Batch[] }>(scoped(mode, "/batches?limit=50")),
    refetchInterval: (q) => (q.state.data?.batches.some((b) => !ENDED.has(b.status)) ? 1_000 : false),
  });
  const cancel = useMutation({
    mutationFn: (id: string) =>
      call(scoped(mode, `/batches/${encodeURIComponent(id)}/cancel`), { method: "POST" }),
    onSuccess: () => {
      setCanceling(null);
      void queryClient.invalidateQueries({ queryKey: ["scoped", mode, "batches"] });
    },
  });
  const file = (b: Batch, which: "results" | "errors") =>
    `/console/api${scoped(mode, `/batches/${b.id}/${which}`)}`;
  const columns: Column<Batch>[] = [
    {
      header: "Batch",
      cell: (b) => (
        <>
          <code>{b.id}</code>
          <div className="muted">
            {b.model_id} · <Time value={b.created_at} />
          </div>
        </>
      ),
    },
    {
      header: "Status",
      cell: (b) => (
        <>
          {b.status.replace("_", " ")}
          {b.paused_reason && b.status === "in_progress" ? (
            <div className="muted">paused: {b.paused_reason.replaceAll("_", " ")}</div>
          ) : null}
        </>
      ),
    },
    { header: "Progress", cell: progressOf },
    { header: "Tokens", numeric: true, cell: (b) => number.format(b.tokens_charged) },
    {
      header: "Actions",
      hiddenHeader: true,
      cell: (b) => (
        <span className="actions">
          <a href={file(b, "results")} download={`${b.id}-results.jsonl`}>
            Results<span className="visually-hidden"> of {b.id}</span>
          </a>{" "}
          <a href={file(b, "errors")} download={`${b.id}-errors.jsonl`}>
            Errors<span className="visually-hidden"> of {b.id}</span>
          </a>{" "}
          {ENDED.has(b.status) || b.status === "canceling" ? null : (
            <button type="button" className="danger" onClick={() => setCanceling(b)}>
              Cancel<span className="visually-hidden"> {b.id}</span>
            </button>
          )}
        </span>
      ),
    },
  ];
  const list = batches.data?.batches ?? [];
  return (
    <>
      <PageHeader title="Batches" />
      <p className="lead">
        Many runs of one model in one call ({mode}), at the batch price, run below interactive work. Make them
        with <code>POST /api/v1/batches</code> or OpenAI&apos;s Batch API; results download as JSON Lines, one
        line per item that has ended.
      </p>
      <ErrorMessage error={batches.error} />
      {batches.isPending ? <Loading /> : null}
      {!batches.isPending && !list.length ? <Empty>No {mode} batches yet.</Empty> : null}
      {list.length ? (
        <DataTable
          rows={list}
          rowKey={(b) => b.id}
          rowProps={(b) => ({ "data-batch": b.id })}
          columns={columns}
        />
      ) : null}
      <Confirm
        open={canceling !== null}
        title="Cancel this batch?"
        action="Cancel batch"
        busy={cancel.isPending}
        error={cancel.error}
        onConfirm={() => canceling && cancel.mutate(canceling.id)}
        onClose={() => setCanceling(null)}
      >
        Lines not started end canceled and are not charged; its runs are canceled, each charged what it
        delivered.
      </Confirm>
    </>
  );
}
