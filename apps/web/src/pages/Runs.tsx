import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { call, query, scoped, type Model, type RunSummary } from "../api";
import { useConsole } from "../session";
import { Empty, ErrorMessage, isActive, Loading, PageHeader, StatusBadge, Time } from "../ui";
import { DataTable, type Column } from "../table";

const STATUSES = ["QUEUED", "EXECUTING", "COMPLETED", "FAILED", "CANCELED"];

/** datetime-local (the browser's local time) to an ISO date-time, or undefined. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);

type Filters = { model_id: string; status: string; created_after: string; created_before: string };

/** The runs' filters: model, status, created between. */
function RunFilters({
  draft,
  setDraft,
  models,
  onApply,
}: {
  draft: Filters;
  setDraft(filters: Filters): void;
  models: Model[];
  onApply(event: FormEvent): void;
}) {
  const apply = onApply;
  return (
    <form className="filters" onSubmit={apply} role="search" aria-label="Filter runs">
      <label>
        Model
        <select value={draft.model_id} onChange={(e) => setDraft({ ...draft, model_id: e.target.value })}>
          <option value="">All models</option>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name} ({m.id})
            </option>
          ))}
        </select>
      </label>
      <label>
        Status
        <select value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.toLowerCase()}
            </option>
          ))}
        </select>
      </label>
      <label>
        Created after
        <input
          type="datetime-local"
          value={draft.created_after}
          onChange={(e) => setDraft({ ...draft, created_after: e.target.value })}
        />
      </label>
      <label>
        Created before
        <input
          type="datetime-local"
          value={draft.created_before}
          onChange={(e) => setDraft({ ...draft, created_before: e.target.value })}
        />
      </label>
      <button type="submit" className="secondary">
        Apply
      </button>
    </form>
  );
}

const RUN_COLUMNS: Column<RunSummary>[] = [
  {
    header: "Run",
    cell: (r) => (
      <Link to={`/runs/${r.run_id}`}>
        <code>{r.run_id}</code>
      </Link>
    ),
  },
  // A FAILED run's view has neither its model nor its times (interface-spec).
  {
    header: "Model",
    cell: (r) => ("model_id" in r ? r.model_id : <span className="muted">—</span>),
  },
  { header: "Status", cell: (r) => <StatusBadge status={r.status} /> },
  { header: "Created", cell: (r) => <Time value={"created_at" in r ? r.created_at : undefined} /> },
  {
    header: "Tokens",
    numeric: true,
    cell: (r) => ("tokens_charged" in r ? r.tokens_charged : <span className="muted">—</span>),
  },
];

export function Runs() {
  const { mode } = useConsole();
  const [params, setParams] = useSearchParams();
  const filters = {
    model_id: params.get("model_id") ?? "",
    status: params.get("status") ?? "",
    created_after: params.get("created_after") ?? "",
    created_before: params.get("created_before") ?? "",
  };
  const [draft, setDraft] = useState(filters);
  const models = useQuery({
    queryKey: ["scoped", mode, "models"],
    queryFn: () => call<{ models: Model[] }>(scoped(mode, "/models?limit=200")),
  });
  const runs = useInfiniteQuery({
    queryKey: ["scoped", mode, "runs", filters],
    queryFn: ({ pageParam }) =>
      call<{ runs: RunSummary[]; next_cursor: string | null }>(
        scoped(
          mode,
          `/runs${query({
            limit: 25,
            cursor: pageParam,
            model_id: filters.model_id,
            status: filters.status,
            created_after: toIso(filters.created_after),
            created_before: toIso(filters.created_before),
          })}`,
        ),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Live while anything shown is still queued or executing.
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.runs.some((r) => isActive(r.status))) ? 2_000 : false,
  });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setParams(Object.fromEntries(Object.entries(draft).filter(([, v]) => v)));
  };
  const list = runs.data?.pages.flatMap((p) => p.runs) ?? [];

  return (
    <>
      <PageHeader title="Runs">
        <Link className="button" to="/models">
          Start a run
        </Link>
      </PageHeader>
      <RunFilters draft={draft} setDraft={setDraft} models={models.data?.models ?? []} onApply={apply} />
      <ErrorMessage error={runs.error} />
      {runs.isPending ? <Loading /> : null}
      {!runs.isPending && list.length === 0 ? (
        <Empty>
          No {mode} runs{params.size ? " match these filters" : " yet"}.{" "}
          <Link to="/models">Start one from the playground.</Link>
        </Empty>
      ) : null}
      {list.length ? <DataTable rows={list} rowKey={(r) => r.run_id} live columns={RUN_COLUMNS} /> : null}
      {runs.hasNextPage ? (
        <button
          type="button"
          className="secondary"
          onClick={() => void runs.fetchNextPage()}
          disabled={runs.isFetchingNextPage}
        >
          {runs.isFetchingNextPage ? "Loading…" : "Older runs"}
        </button>
      ) : null}
    </>
  );
}
