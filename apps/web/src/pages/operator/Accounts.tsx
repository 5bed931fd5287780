// Every account: tokens, usage and fair share at a glance, a search, and opening an account.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { call, query, type OperatorAccount } from "../../api";
import { DataTable } from "../../table";
import {
  CountInput,
  DialogForm,
  Empty,
  ErrorMessage,
  Loading,
  number,
  PageHeader,
  ReasonField,
} from "../../ui";

export function OperatorAccounts() {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [opening, setOpening] = useState(false);
  const [name, setName] = useState("");
  const [tokens, setTokens] = useState("");
  const [openReason, setOpenReason] = useState("");
  const accounts = useQuery({
    queryKey: ["operator", "accounts", q],
    queryFn: () => call<{ accounts: OperatorAccount[] }>(`/operator/accounts${query({ q })}`),
  });
  const open = useMutation({
    mutationFn: () =>
      call<OperatorAccount>("/operator/accounts", {
        method: "POST",
        body: { name, tokens: tokens ? Number(tokens) : 0, reason: openReason },
      }),
    onSuccess: () => {
      setOpening(false);
      setName("");
      setTokens("");
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  return (
    <>
      <PageHeader title="Accounts">
        <button type="button" onClick={() => setOpening(true)}>
          Open account
        </button>
      </PageHeader>
      <form
        className="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setQ(search.trim());
        }}
      >
        <label>
          Id or name
          <input value={search} onChange={(e) => setSearch(e.target.value)} placeholder="acct_… or a name" />
        </label>
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      {accounts.isPending ? <Loading /> : null}
      <ErrorMessage error={accounts.error} />
      {accounts.data && accounts.data.accounts.length === 0 ? <Empty>No accounts.</Empty> : null}
      {accounts.data && accounts.data.accounts.length > 0 ? (
        <DataTable
          rows={accounts.data.accounts}
          rowKey={(a) => a.id}
          rowProps={(a) => ({ "data-account-id": a.id })}
          columns={[
            {
              header: "Account",
              cell: (a) => (
                <>
                  <Link to={`/operator/accounts/${a.id}`}>{a.name}</Link>
                  <div className="muted small">
                    <code>{a.id}</code>
                  </div>
                </>
              ),
            },
            { header: "Available", numeric: true, cell: (a) => number.format(a.available) },
            { header: "Reserved", numeric: true, cell: (a) => number.format(a.reserved) },
            { header: "Balance", numeric: true, cell: (a) => number.format(a.balance) },
            { header: "Charged (30 days)", numeric: true, cell: (a) => number.format(a.charged_30d) },
            { header: "Weight", numeric: true, cell: (a) => a.weight },
            { header: "Runs at once", numeric: true, cell: (a) => a.max_concurrent_runs ?? "default" },
            { header: "People", numeric: true, cell: (a) => a.people },
          ]}
        />
      ) : null}
      <DialogForm
        open={opening}
        title="Open an account"
        onClose={() => setOpening(false)}
        onSubmit={() => open.mutate()}
        error={open.error}
        submit="Open account"
        busy={open.isPending}
      >
        <label>
          Name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Opening grant (tokens, optional)
          <CountInput value={tokens} onChange={setTokens} />
        </label>
        <ReasonField value={openReason} onChange={setOpenReason} />
      </DialogForm>
    </>
  );
}
