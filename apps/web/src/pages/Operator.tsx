// The operator's pages: every account (tokens, usage, scheduling), one account's people, keys and
// ledger with a form to grant or deduct tokens, the catalogue with each model's queue, and the
// audit log. The server allows these to operators only; other people never see the links.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, Outlet, useParams } from "react-router";
import {
  call,
  query,
  type AuditEntry,
  type OperatorAccount,
  type OperatorAccountDetail,
  type OperatorModel,
} from "../api";
import { useConsole } from "../session";
import { CountInput, DialogForm, Empty, ErrorMessage, Loading, PageHeader, Stat, Time } from "../ui";

const number = new Intl.NumberFormat();

/** The operator pages' frame: anyone else who opens one of their addresses is told whose they are. */
export function OperatorPages() {
  const { isOperator } = useConsole();
  if (!isOperator)
    return (
      <>
        <PageHeader title="Operators only" />
        <p className="lead">These pages are for the people who run the service.</p>
      </>
    );
  return <Outlet />;
}

export function OperatorAccounts() {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [opening, setOpening] = useState(false);
  const [name, setName] = useState("");
  const [tokens, setTokens] = useState("");
  const accounts = useQuery({
    queryKey: ["operator", "accounts", q],
    queryFn: () => call<{ accounts: OperatorAccount[] }>(`/operator/accounts${query({ q })}`),
  });
  const open = useMutation({
    mutationFn: () =>
      call<OperatorAccount>("/operator/accounts", {
        method: "POST",
        body: { name, tokens: tokens ? Number(tokens) : 0 },
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
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col" className="num">
                  Available
                </th>
                <th scope="col" className="num">
                  Reserved
                </th>
                <th scope="col" className="num">
                  Balance
                </th>
                <th scope="col" className="num">
                  Charged (30 days)
                </th>
                <th scope="col" className="num">
                  Weight
                </th>
                <th scope="col" className="num">
                  Runs at once
                </th>
                <th scope="col" className="num">
                  People
                </th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.accounts.map((a) => (
                <tr key={a.id} data-account-id={a.id}>
                  <td>
                    <Link to={`/operator/accounts/${a.id}`}>{a.name}</Link>
                    <div className="muted small">
                      <code>{a.id}</code>
                    </div>
                  </td>
                  <td className="num">{number.format(a.available)}</td>
                  <td className="num">{number.format(a.reserved)}</td>
                  <td className="num">{number.format(a.balance)}</td>
                  <td className="num">{number.format(a.charged_30d)}</td>
                  <td className="num">{a.weight}</td>
                  <td className="num">{a.max_concurrent_runs ?? "default"}</td>
                  <td className="num">{a.people}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
      </DialogForm>
    </>
  );
}

export function OperatorAccountPage() {
  const { accountId = "" } = useParams();
  const queryClient = useQueryClient();
  const path = `/operator/accounts/${encodeURIComponent(accountId)}`;
  const detail = useQuery({
    queryKey: ["operator", "account", accountId],
    queryFn: () => call<OperatorAccountDetail>(path),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["operator"] });
  const [amount, setAmount] = useState("");
  const [direction, setDirection] = useState<"grant" | "deduct">("grant");
  const [reason, setReason] = useState("");
  const adjust = useMutation({
    mutationFn: () =>
      call<OperatorAccount>(`${path}/adjustments`, {
        method: "POST",
        body: { amount: (direction === "grant" ? 1 : -1) * Number(amount), reason },
      }),
    onSuccess: () => {
      setAmount("");
      setReason("");
      refresh();
    },
  });
  const [adding, setAdding] = useState(false);
  const [person, setPerson] = useState({ email: "", password: "", role: "member" as "owner" | "member" });
  const addPerson = useMutation({
    mutationFn: () => call(`${path}/people`, { method: "POST", body: person }),
    onSuccess: () => {
      setAdding(false);
      setPerson({ email: "", password: "", role: "member" });
      refresh();
    },
  });
  const changePerson = useMutation({
    mutationFn: (change: { id: string; role?: "owner" | "member"; disabled?: boolean }) =>
      call(`/operator/people/${encodeURIComponent(change.id)}`, {
        method: "PATCH",
        body: { role: change.role, disabled: change.disabled },
      }),
    onSuccess: refresh,
  });

  if (detail.isPending) return <Loading />;
  if (detail.error) return <ErrorMessage error={detail.error} />;
  const { account, people, keys, ledger } = detail.data;
  const submitAdjust = (event: FormEvent) => {
    event.preventDefault();
    adjust.mutate();
  };
  return (
    <>
      <PageHeader title={account.name} />
      <p className="muted small">
        <code>{account.id}</code> · opened <Time value={account.created_at} />
      </p>
      <section className="stats" aria-label="Tokens">
        <Stat label="Available" value={account.available} hint="balance − reserved" />
        <Stat label="Reserved" value={account.reserved} hint="held for queued and executing runs" />
        <Stat label="Balance" value={account.balance} hint="granted − charged − deducted" />
        <Stat
          label="Charged, 30 days"
          value={account.charged_30d}
          hint="CHARGE entries of the last 30 days"
        />
      </section>

      <section className="card" aria-labelledby="adjust-title">
        <h2 id="adjust-title">Grant or deduct tokens</h2>
        <form className="filters" onSubmit={submitAdjust} aria-label="Grant or deduct tokens">
          <label>
            Action
            <select value={direction} onChange={(e) => setDirection(e.target.value as "grant" | "deduct")}>
              <option value="grant">Grant</option>
              <option value="deduct">Deduct</option>
            </select>
          </label>
          <label>
            Tokens
            <CountInput value={amount} onChange={setAmount} />
          </label>
          <label>
            Reason
            <input required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
          <button type="submit" disabled={adjust.isPending || !amount}>
            Record
          </button>
          <span className="hint">
            A ledger entry (GRANT or DEDUCT) and an audit entry; balances are never edited.
          </span>
        </form>
        <ErrorMessage error={adjust.error} />
      </section>

      <FairShare account={account} path={path} onSaved={refresh} />

      <section aria-labelledby="people-title">
        <PageHeader title="People">
          <button type="button" className="secondary" onClick={() => setAdding(true)}>
            Add person
          </button>
        </PageHeader>
        <ErrorMessage error={changePerson.error} />
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {people.map((p) => (
                <tr key={p.id} data-person={p.email}>
                  <td>{p.email}</td>
                  <td>{p.role}</td>
                  <td>
                    {p.last_sign_in_at ? (
                      <Time value={p.last_sign_in_at} />
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td>
                    {p.disabled_at ? (
                      <span className="badge badge-failed">disabled</span>
                    ) : (
                      <span className="badge badge-completed">active</span>
                    )}
                  </td>
                  <td>
                    {p.role === "operator" ? null : (
                      <>
                        <button
                          type="button"
                          className="secondary"
                          onClick={() =>
                            changePerson.mutate({ id: p.id, role: p.role === "owner" ? "member" : "owner" })
                          }
                        >
                          Make {p.role === "owner" ? "member" : "owner"}
                          <span className="visually-hidden"> {p.email}</span>
                        </button>{" "}
                        <button
                          type="button"
                          className={p.disabled_at ? "secondary" : "danger"}
                          onClick={() => changePerson.mutate({ id: p.id, disabled: !p.disabled_at })}
                        >
                          {p.disabled_at ? "Enable" : "Disable"}
                          <span className="visually-hidden"> {p.email}</span>
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        {keys.length === 0 ? <Empty>No keys.</Empty> : null}
        {keys.length ? (
          <ul>
            {keys.map((k) => (
              <li key={k.id}>
                <code>{k.prefix}</code> {k.name} ({k.mode}){k.revoked_at ? " · revoked" : ""}
                {k.budget ? ` · budget ${k.budget.used}/${k.budget.tokens} per ${k.budget.period}` : ""}
              </li>
            ))}
          </ul>
        ) : null}
      </section>

      <section aria-labelledby="ledger-title">
        <h2 id="ledger-title">Newest ledger entries</h2>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">Note</th>
              </tr>
            </thead>
            <tbody>
              {ledger.map((e) => (
                <tr key={e.id}>
                  <td>
                    <Time value={e.created_at} />
                  </td>
                  <td>{e.kind.toLowerCase()}</td>
                  <td className="num">{number.format(e.amount)}</td>
                  <td>{e.note || (e.run_id ? <code>{e.run_id}</code> : null)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <DialogForm
        open={adding}
        title="Add a person"
        onClose={() => setAdding(false)}
        onSubmit={() => addPerson.mutate()}
        error={addPerson.error}
        submit="Add person"
        busy={addPerson.isPending}
      >
        <label>
          Email
          <input
            type="email"
            required
            value={person.email}
            onChange={(e) => setPerson({ ...person, email: e.target.value })}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            required
            minLength={10}
            autoComplete="new-password"
            value={person.password}
            onChange={(e) => setPerson({ ...person, password: e.target.value })}
          />
        </label>
        <label>
          Role
          <select
            value={person.role}
            onChange={(e) => setPerson({ ...person, role: e.target.value as "owner" | "member" })}
          >
            <option value="member">member</option>
            <option value="owner">owner</option>
          </select>
        </label>
      </DialogForm>
    </>
  );
}

/** An account's weight and runs at once, the form filled with what they are now. */
function FairShare({ account, path, onSaved }: { account: OperatorAccount; path: string; onSaved(): void }) {
  const [weight, setWeight] = useState(String(account.weight));
  const [limit, setLimit] = useState(account.max_concurrent_runs ? String(account.max_concurrent_runs) : "");
  const scheduling = useMutation({
    mutationFn: () =>
      call<OperatorAccount>(path, {
        method: "PATCH",
        body: { weight: Number(weight || 1), max_concurrent_runs: limit ? Number(limit) : null },
      }),
    onSuccess: onSaved,
  });
  return (
    <section className="card" aria-labelledby="scheduling-title">
      <h2 id="scheduling-title">Fair share</h2>
      <form
        className="filters"
        aria-label="Fair share"
        onSubmit={(event) => {
          event.preventDefault();
          scheduling.mutate();
        }}
      >
        <label>
          Weight
          <CountInput value={weight} onChange={setWeight} />
        </label>
        <label>
          Runs at once
          <CountInput value={limit} onChange={setLimit} placeholder="default" />
        </label>
        <button type="submit" className="secondary" disabled={scheduling.isPending}>
          Save
        </button>
        <span className="hint">
          Turns on busy models in proportion to the weight; empty runs at once: the default.
        </span>
      </form>
      <ErrorMessage error={scheduling.error} />
    </section>
  );
}

export function OperatorModels() {
  const queryClient = useQueryClient();
  const models = useQuery({
    queryKey: ["operator", "models"],
    queryFn: () => call<{ models: OperatorModel[] }>("/operator/models"),
    refetchInterval: 5_000,
  });
  const [editing, setEditing] = useState<{
    model: OperatorModel;
    price: string;
    status: string;
    servers: string;
    concurrency: string;
  } | null>(null);
  const save = useMutation({
    mutationFn: (edit: NonNullable<typeof editing>) =>
      call(`/operator/models/${edit.model.id}`, {
        method: "PATCH",
        body: {
          tokens_per_unit: Number(edit.price),
          status: edit.status,
          ...(edit.model.runner === "cog" && {
            servers: edit.servers
              .split(/\s+/)
              .map((s) => s.trim())
              .filter(Boolean),
            concurrency: Number(edit.concurrency || 1),
          }),
        },
      }),
    onSuccess: () => {
      setEditing(null);
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  const [cog, setCog] = useState({ cog_url: "", id: "", tokens_per_unit: "1" });
  const importModel = useMutation({
    mutationFn: () =>
      call("/operator/models/import", {
        method: "POST",
        body: { ...cog, tokens_per_unit: Number(cog.tokens_per_unit) },
      }),
    onSuccess: () => {
      setCog({ cog_url: "", id: "", tokens_per_unit: "1" });
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  return (
    <>
      <PageHeader title="Catalogue & queues" />
      <section className="card" aria-labelledby="import-title">
        <h2 id="import-title">Import a Cog model</h2>
        <form
          className="filters"
          aria-label="Import a Cog model"
          onSubmit={(event) => {
            event.preventDefault();
            importModel.mutate();
          }}
        >
          <label>
            Cog server URL
            <input
              type="url"
              required
              value={cog.cog_url}
              onChange={(e) => setCog({ ...cog, cog_url: e.target.value })}
              placeholder="http://gpu-0:5000"
            />
          </label>
          <label>
            Model id
            <input
              required
              value={cog.id}
              onChange={(e) => setCog({ ...cog, id: e.target.value })}
              placeholder="you/sdxl"
            />
          </label>
          <label>
            Tokens per image
            <CountInput
              value={cog.tokens_per_unit}
              onChange={(v) => setCog({ ...cog, tokens_per_unit: v })}
            />
          </label>
          <button type="submit" disabled={importModel.isPending}>
            Import
          </button>
        </form>
        <ErrorMessage error={importModel.error} />
      </section>
      {models.isPending ? <Loading /> : null}
      <ErrorMessage error={models.error} />
      {models.data ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Price
                </th>
                <th scope="col">Runs on</th>
                <th scope="col">Queue</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {models.data.models.map((m) => (
                <tr key={m.id} data-model-id={m.id}>
                  <td>
                    {m.name}
                    <div className="muted small">
                      <code>{m.id}</code>
                    </div>
                  </td>
                  <td>{m.status}</td>
                  <td className="num">
                    {m.tokens_per_unit} / {m.unit}
                  </td>
                  <td>
                    {m.runner === "cog" ? (
                      <>
                        {m.servers.length} server{m.servers.length === 1 ? "" : "s"} × {m.concurrency}
                      </>
                    ) : (
                      "built-in"
                    )}
                  </td>
                  <td data-testid="model-queue">
                    {m.queue ? (
                      <>
                        {m.queue.in_flight} of {m.queue.capacity} busy · {m.queue.queue_length} waiting
                        {m.queue.oldest_queued_at ? (
                          <div className="muted small">
                            oldest since <Time value={m.queue.oldest_queued_at} />
                          </div>
                        ) : null}
                        {m.queue.servers_down.length ? (
                          <div className="badge badge-failed">{m.queue.servers_down.length} down</div>
                        ) : null}
                      </>
                    ) : (
                      <span className="muted">unlimited</span>
                    )}
                  </td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      onClick={() =>
                        setEditing({
                          model: m,
                          price: String(m.tokens_per_unit),
                          status: m.status,
                          servers: m.servers.join("\n"),
                          concurrency: String(m.concurrency ?? 1),
                        })
                      }
                    >
                      Edit<span className="visually-hidden"> {m.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <DialogForm
        open={editing !== null}
        title={`Edit ${editing?.model.id ?? ""}`}
        onClose={() => setEditing(null)}
        onSubmit={() => editing && save.mutate(editing)}
        error={save.error}
        submit="Save model"
        busy={save.isPending}
      >
        {editing ? (
          <>
            <label>
              Tokens per {editing.model.unit}
              <input
                type="number"
                min={0}
                step={1}
                required
                value={editing.price}
                onChange={(e) => setEditing({ ...editing, price: e.target.value })}
              />
            </label>
            <label>
              Status
              <select
                value={editing.status}
                onChange={(e) => setEditing({ ...editing, status: e.target.value })}
              >
                {[...new Set(["active", "deprecated", "disabled", editing.status])].map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
              <span className="hint">Only active models are listed and runnable.</span>
            </label>
            {editing.model.runner === "cog" ? (
              <label>
                Servers (one URL per line)
                <textarea
                  rows={4}
                  value={editing.servers}
                  onChange={(e) => setEditing({ ...editing, servers: e.target.value })}
                />
              </label>
            ) : null}
            {editing.model.runner === "cog" ? (
              <label>
                Predictions at once per server
                <CountInput
                  value={editing.concurrency}
                  onChange={(concurrency) => setEditing({ ...editing, concurrency })}
                />
                <span className="hint">The model's capacity is its healthy servers × this.</span>
              </label>
            ) : null}
          </>
        ) : null}
      </DialogForm>
    </>
  );
}

export function OperatorAudit() {
  const audit = useInfiniteQuery({
    queryKey: ["operator", "audit"],
    queryFn: ({ pageParam }) =>
      call<{ entries: AuditEntry[]; next_cursor: string | null }>(
        `/operator/audit${query({ limit: 50, cursor: pageParam })}`,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <>
      <PageHeader title="Audit log" />
      <p className="lead">Every operator action: who, what, when, and the state before and after.</p>
      {audit.isPending ? <Loading /> : null}
      <ErrorMessage error={audit.error} />
      {!audit.isPending && entries.length === 0 ? <Empty>No operator action yet.</Empty> : null}
      {entries.length ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">On</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-audit-action={e.action}>
                  <td>
                    <Time value={e.created_at} />
                  </td>
                  <td>{e.actor_email}</td>
                  <td>{e.action}</td>
                  <td>
                    {e.account_id ? (
                      <Link to={`/operator/accounts/${e.account_id}`}>
                        <code>{e.target_id}</code>
                      </Link>
                    ) : (
                      <code>{e.target_id}</code>
                    )}
                  </td>
                  <td>
                    <pre className="json">{e.before === null ? "—" : JSON.stringify(e.before, null, 1)}</pre>
                  </td>
                  <td>
                    <pre className="json">{e.after === null ? "—" : JSON.stringify(e.after, null, 1)}</pre>
                  </td>
                  <td>{e.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {audit.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => void audit.fetchNextPage()}>
          Older entries
        </button>
      ) : null}
    </>
  );
}
