import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { call, query, scoped, type Account, type LedgerEntry, type Mode, type Usage } from "../api";
import { useConsole } from "../session";
import { DataTable, type Column } from "../table";
import { CountInput, Empty, ErrorMessage, Loading, number, PageHeader, Stat, Time } from "../ui";

/** The owner's low-balance threshold: account.balance_low goes to the live endpoints subscribed to it. */
function LowBalanceAlert({ threshold }: { threshold: number | null }) {
  const { isOwner } = useConsole();
  const queryClient = useQueryClient();
  const [value, setValue] = useState(threshold === null ? "" : String(threshold));
  const save = useMutation({
    mutationFn: () =>
      call<{ low_balance_threshold: number | null }>("/account/alerts", {
        method: "PATCH",
        body: { low_balance_threshold: value ? Number(value) : null },
      }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["scoped", "live", "account"] }),
  });
  if (!isOwner)
    return (
      <p className="muted small" data-testid="low-balance">
        Low-balance alert: {threshold === null ? "off" : `below ${number.format(threshold)} tokens`}.
      </p>
    );
  return (
    <form
      className="filters"
      aria-label="Low-balance alert"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <label>
        Alert below (tokens)
        <CountInput value={value} onChange={setValue} placeholder="off" />
      </label>
      <button type="submit" className="secondary" disabled={save.isPending}>
        Save alert
      </button>
      {save.isSuccess ? <span className="muted small">Saved.</span> : null}
      <span className="hint">
        Sends <code>account.balance_low</code> to live webhook endpoints subscribed to it, once each time
        available tokens fall below it. Empty: off.
      </span>
      <ErrorMessage error={save.error} />
    </form>
  );
}

const LEDGER_COLUMNS: Column<LedgerEntry>[] = [
  { header: "When", cell: (e) => <Time value={e.created_at} /> },
  {
    header: "Kind",
    cell: (e) => <span className={`badge kind-${e.kind.toLowerCase()}`}>{e.kind.toLowerCase()}</span>,
  },
  { header: "Amount", numeric: true, cell: (e) => number.format(e.amount) },
  { header: "Balance Δ", numeric: true, cell: (e) => signed(e.balance_delta) },
  { header: "Reserved Δ", numeric: true, cell: (e) => signed(e.reserved_delta) },
  {
    header: "Run",
    cell: (e) =>
      e.run_id ? (
        <Link to={`/runs/${e.run_id}`}>
          <code>{e.run_id}</code>
        </Link>
      ) : null,
  },
  { header: "Note", cell: (e) => e.note },
];

/** Test mode: the test runs left; live: the balance, what is reserved, what is available. */
function Balances({ mode, account }: { mode: Mode; account: Account | undefined }) {
  return mode === "test" ? (
    <>
      <section className="stats" aria-label="Test runs">
        <Stat
          label="Test runs left"
          value={account?.test_runs.remaining}
          hint={`of ${account?.test_runs.limit ?? "…"} per 24 hours, across all test keys`}
        />
      </section>
      <p className="muted small">
        Test mode has no tokens: test runs are free, and acme/echo is unlimited. Switch to Live for the
        balance and the ledger.
      </p>
    </>
  ) : (
    <>
      <section className="stats" aria-label="Tokens">
        <Stat label="Available" value={account?.available} hint="balance − reserved: what new runs can use" />
        <Stat label="Reserved" value={account?.reserved} hint="held for runs that are queued or executing" />
        <Stat label="Balance" value={account?.balance} hint="granted − charged" />
      </section>
      <p className="muted small">One token balance per account; test runs never touch it.</p>
      {account ? <LowBalanceAlert threshold={account.low_balance_threshold} /> : null}
    </>
  );
}

export function UsagePage() {
  const { mode } = useConsole();
  const [params, setParams] = useSearchParams();
  const runFilter = params.get("run_id") ?? "";
  const [runInput, setRunInput] = useState(runFilter);
  const account = useQuery({
    queryKey: ["scoped", mode, "account"],
    queryFn: () => call<Account>(scoped(mode, "/account")),
    refetchInterval: 10_000,
  });
  const usage = useQuery({
    queryKey: ["scoped", mode, "usage"],
    queryFn: () => call<Usage>(scoped(mode, "/account/usage?days=30")),
  });
  const ledger = useInfiniteQuery({
    queryKey: ["scoped", mode, "ledger", runFilter],
    queryFn: ({ pageParam }) =>
      call<{ entries: LedgerEntry[]; next_cursor: string | null }>(
        scoped(mode, `/account/ledger${query({ limit: 25, cursor: pageParam, run_id: runFilter })}`),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const filter = (event: FormEvent) => {
    event.preventDefault();
    setParams(runInput.trim() ? { run_id: runInput.trim() } : {});
  };
  const entries = ledger.data?.pages.flatMap((p) => p.entries) ?? [];

  return (
    <>
      <PageHeader title="Usage & balance" />
      <ErrorMessage error={account.error} />
      <Balances mode={mode} account={account.data} />

      <section aria-labelledby="chart-title" className="card">
        <h2 id="chart-title">Tokens charged per day, last 30 days</h2>
        <ErrorMessage error={usage.error} />
        {usage.data ? <Chart usage={usage.data} /> : <Loading />}
      </section>

      <section aria-labelledby="ledger-title">
        <h2 id="ledger-title">Ledger</h2>
        <form className="filters" onSubmit={filter} role="search">
          <label>
            Run id
            <input value={runInput} onChange={(e) => setRunInput(e.target.value)} placeholder="run_…" />
          </label>
          <button type="submit" className="secondary">
            Filter
          </button>
          {runFilter ? (
            <button type="button" className="link" onClick={() => (setRunInput(""), setParams({}))}>
              Clear
            </button>
          ) : null}
        </form>
        <ErrorMessage error={ledger.error} />
        {ledger.isPending ? <Loading /> : null}
        {!ledger.isPending && entries.length === 0 ? (
          <Empty>No ledger entries{runFilter ? " for this run" : ""}.</Empty>
        ) : null}
        {entries.length ? <DataTable rows={entries} rowKey={(e) => e.id} columns={LEDGER_COLUMNS} /> : null}
        {ledger.hasNextPage ? (
          <button
            type="button"
            className="secondary"
            onClick={() => void ledger.fetchNextPage()}
            disabled={ledger.isFetchingNextPage}
          >
            {ledger.isFetchingNextPage ? "Loading…" : "Older entries"}
          </button>
        ) : null}
      </section>
    </>
  );
}

const signed = (n: number) => (n > 0 ? `+${number.format(n)}` : n < 0 ? `−${number.format(-n)}` : "0");

/** A bar per day, drawn as SVG; a table of the same numbers for screen readers. */
function Chart({ usage }: { usage: Usage }) {
  const max = Math.max(1, ...usage.days.map((d) => d.tokens_charged));
  const width = 600;
  const height = 160;
  const bar = width / usage.days.length;
  return (
    <figure className="chart">
      <svg
        viewBox={`-16 0 ${width + 32} ${height + 20}`}
        role="img"
        aria-label={`Tokens charged per day; ${number.format(usage.total_tokens_charged)} in total`}
      >
        {usage.days.map((d, i) => {
          const h = (d.tokens_charged / max) * height;
          return (
            <g key={d.date}>
              <rect
                x={i * bar + 2}
                y={height - h}
                width={bar - 4}
                height={Math.max(h, d.tokens_charged ? 2 : 0)}
                className="bar"
              >
                <title>{`${d.date}: ${number.format(d.tokens_charged)} tokens, ${d.runs_charged} runs`}</title>
              </rect>
              {i % 5 === 0 ? (
                <text x={i * bar + bar / 2} y={height + 15} textAnchor="middle" className="axis">
                  {d.date.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
        <line x1="0" x2={width} y1={height} y2={height} className="baseline" />
      </svg>
      <figcaption>
        {number.format(usage.total_tokens_charged)} tokens charged in the last {usage.days.length} days (UTC
        days).
      </figcaption>
    </figure>
  );
}
