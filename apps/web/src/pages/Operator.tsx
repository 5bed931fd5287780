// The operator's pages: every account (tokens, usage, scheduling), one account's people, keys and
// ledger with a form to grant or deduct tokens, the catalogue with each model's queue, and the
// audit log. The server allows these to operators only; other people never see the links.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, Outlet, useParams } from "react-router";
import { call, query, type OperatorAccount, type OperatorAccountDetail, type OperatorModel } from "../api";
import { useConsole } from "../session";
import {
  CountInput,
  DialogForm,
  Empty,
  ErrorMessage,
  Loading,
  PageHeader,
  ReasonField,
  Stat,
  Time,
} from "../ui";
import { AuditLog } from "./AuditLog";

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
        <ReasonField value={openReason} onChange={setOpenReason} />
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
  const noPerson = { email: "", password: "", role: "member" as "owner" | "member", reason: "" };
  const [person, setPerson] = useState(noPerson);
  const addPerson = useMutation({
    mutationFn: () => call(`${path}/people`, { method: "POST", body: person }),
    onSuccess: () => {
      setAdding(false);
      setPerson(noPerson);
      refresh();
    },
  });
  // A change of a person is confirmed with its reason in a dialog.
  const [changing, setChanging] = useState<{
    id: string;
    label: string;
    role?: "owner" | "member";
    disabled?: boolean;
    reason: string;
  } | null>(null);
  const changePerson = useMutation({
    mutationFn: (change: NonNullable<typeof changing>) =>
      call(`/operator/people/${encodeURIComponent(change.id)}`, {
        method: "PATCH",
        body: { role: change.role, disabled: change.disabled, reason: change.reason },
      }),
    onSuccess: () => {
      setChanging(null);
      refresh();
    },
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
                            setChanging({
                              id: p.id,
                              label: `Make ${p.email} ${p.role === "owner" ? "a member" : "an owner"}`,
                              role: p.role === "owner" ? "member" : "owner",
                              reason: "",
                            })
                          }
                        >
                          Make {p.role === "owner" ? "member" : "owner"}
                          <span className="visually-hidden"> {p.email}</span>
                        </button>{" "}
                        <button
                          type="button"
                          className={p.disabled_at ? "secondary" : "danger"}
                          onClick={() =>
                            setChanging({
                              id: p.id,
                              label: `${p.disabled_at ? "Enable" : "Disable"} ${p.email}`,
                              disabled: !p.disabled_at,
                              reason: "",
                            })
                          }
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
        <ReasonField value={person.reason} onChange={(reason) => setPerson({ ...person, reason })} />
      </DialogForm>
      <DialogForm
        open={changing !== null}
        title={changing?.label ?? ""}
        onClose={() => setChanging(null)}
        onSubmit={() => changing && changePerson.mutate(changing)}
        error={changePerson.error}
        submit="Confirm"
        busy={changePerson.isPending}
      >
        {changing ? (
          <ReasonField value={changing.reason} onChange={(reason) => setChanging({ ...changing, reason })} />
        ) : null}
      </DialogForm>
    </>
  );
}

/** An account's weight and runs at once, the form filled with what they are now. */
function FairShare({ account, path, onSaved }: { account: OperatorAccount; path: string; onSaved(): void }) {
  const [weight, setWeight] = useState(String(account.weight));
  const [limit, setLimit] = useState(account.max_concurrent_runs ? String(account.max_concurrent_runs) : "");
  const [reason, setReason] = useState("");
  const scheduling = useMutation({
    mutationFn: () =>
      call<OperatorAccount>(path, {
        method: "PATCH",
        body: { weight: Number(weight || 1), max_concurrent_runs: limit ? Number(limit) : null, reason },
      }),
    onSuccess: () => {
      setReason("");
      onSaved();
    },
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
        <ReasonField value={reason} onChange={setReason} />
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
    reason: string;
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
          reason: edit.reason,
        },
      }),
    onSuccess: () => {
      setEditing(null);
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  const noImport = { cog_url: "", id: "", tokens_per_unit: "1", replace: false, reason: "" };
  const [cog, setCog] = useState(noImport);
  const importModel = useMutation({
    mutationFn: () =>
      call("/operator/models/import", {
        method: "POST",
        body: { ...cog, tokens_per_unit: Number(cog.tokens_per_unit) },
      }),
    onSuccess: () => {
      setCog(noImport);
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
          <ReasonField value={cog.reason} onChange={(reason) => setCog({ ...cog, reason })} />
          <label className="inline">
            <input
              type="checkbox"
              checked={cog.replace}
              onChange={(e) => setCog({ ...cog, replace: e.target.checked })}
            />
            Replace a model with this id
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
                          reason: "",
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
            <ReasonField value={editing.reason} onChange={(reason) => setEditing({ ...editing, reason })} />
          </>
        ) : null}
      </DialogForm>
    </>
  );
}

export function OperatorAudit() {
  return (
    <AuditLog
      title="Audit log"
      lead="Every operator action, from the console or the CLI: who, what, when, the state before and after, and why."
      path="/operator/audit"
      queryKey={["operator", "audit"]}
      linkAccounts
    />
  );
}
