import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { call, scoped, type ApiKey, type ListedApiKey, type Mode, type Model } from "../api";
import { useConsole } from "../session";
import {
  Confirm,
  CountInput,
  Dialog,
  Empty,
  ErrorMessage,
  FormActions,
  Loading,
  OwnersOnly,
  PageHeader,
  ShownOnce,
  Time,
} from "../ui";

type BudgetPeriod = NonNullable<ApiKey["budget"]>["period"];

/**
 * A key's limits as the form holds them: a date (yyyy-mm-dd, empty: none), model ids (none: all),
 * a budget in tokens per period and a number of runs at once (empty: none).
 */
interface LimitsDraft {
  expires: string;
  models: string[];
  budget: string;
  period: BudgetPeriod;
  concurrency: string;
}

const NO_LIMITS: LimitsDraft = { expires: "", models: [], budget: "", period: "day", concurrency: "" };

const PERIOD_WORDS: Record<BudgetPeriod, string> = {
  day: "a day (UTC)",
  month: "a month (UTC)",
  total: "in all",
};

/** The API's fields for a draft: the key expires at the end of the chosen day, local time. */
const limitsBody = (draft: LimitsDraft) => ({
  expires_at: draft.expires ? new Date(`${draft.expires}T23:59:59.999`).toISOString() : null,
  allowed_models: draft.models.length ? draft.models : null,
  budget: draft.budget ? { tokens: Number(draft.budget), period: draft.period } : null,
  max_concurrent_runs: draft.concurrency ? Number(draft.concurrency) : null,
});

const draftOf = (k: ApiKey): LimitsDraft => ({
  expires: k.expires_at ? new Date(k.expires_at).toLocaleDateString("sv") : "",
  models: k.allowed_models ?? [],
  budget: k.budget ? String(k.budget.tokens) : "",
  period: k.budget?.period ?? "day",
  concurrency: k.max_concurrent_runs ? String(k.max_concurrent_runs) : "",
});

const expired = (k: ApiKey) => k.expires_at !== null && Date.parse(k.expires_at) <= Date.now();

/** Expiry and models of a key, in the create and edit dialogs. */
function LimitsFields({ draft, onChange }: { draft: LimitsDraft; onChange: (d: LimitsDraft) => void }) {
  const { mode } = useConsole();
  const models = useQuery({
    queryKey: ["scoped", mode, "models", "all"],
    queryFn: () => call<{ models: Model[] }>(scoped(mode, "/models?limit=200")),
  });
  const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString("sv");
  return (
    <>
      <label>
        Expires (optional)
        <input
          type="date"
          min={tomorrow}
          value={draft.expires}
          onChange={(e) => onChange({ ...draft, expires: e.target.value })}
        />
        <span className="hint">After this day the key is refused, like a revoked one. Empty: never.</span>
      </label>
      <label>
        Models it may run (optional)
        <select
          multiple
          size={Math.min(8, models.data?.models.length ?? 4)}
          value={draft.models}
          onChange={(e) =>
            onChange({ ...draft, models: [...e.target.selectedOptions].map((option) => option.value) })
          }
        >
          {models.data?.models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
        </select>
        <span className="hint">None selected: every model. Others answer 403 MODEL_NOT_ALLOWED.</span>
      </label>
      <fieldset>
        <legend>Spend budget (optional)</legend>
        <label className="inline">
          Tokens
          <CountInput value={draft.budget} onChange={(budget) => onChange({ ...draft, budget })} />
        </label>
        <label className="inline">
          per
          <select
            value={draft.period}
            onChange={(e) => onChange({ ...draft, period: e.target.value as BudgetPeriod })}
          >
            <option value="day">day (UTC)</option>
            <option value="month">month (UTC)</option>
            <option value="total">key's life</option>
          </select>
        </label>
        <span className="hint">
          Live runs past it answer 402 KEY_BUDGET_EXCEEDED; runs in flight count. Empty: no budget.
        </span>
      </fieldset>
      <label>
        Runs at once (optional)
        <CountInput
          value={draft.concurrency}
          onChange={(concurrency) => onChange({ ...draft, concurrency })}
        />
        <span className="hint">
          On models with limited capacity, more of this key's runs wait QUEUED. Empty: the account's limit
          only.
        </span>
      </label>
    </>
  );
}

export function Keys() {
  const { isOwner, mode } = useConsole();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => call<{ keys: ListedApiKey[] }>("/keys") });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [name, setName] = useState("");
  const [newMode, setNewMode] = useState<Mode>(mode);
  const [limits, setLimits] = useState<LimitsDraft>(NO_LIMITS);
  const [editing, setEditing] = useState<{ key: ApiKey; draft: LimitsDraft } | null>(null);

  const create = useMutation({
    mutationFn: () =>
      call<ApiKey & { key: string }>("/keys", {
        method: "POST",
        body: { name, mode: newMode, ...limitsBody(limits) },
      }),
    onSuccess: (key) => {
      setCreating(false);
      setName("");
      setLimits(NO_LIMITS);
      setCreated(key);
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const update = useMutation({
    mutationFn: (edit: { key: ApiKey; draft: LimitsDraft }) =>
      call<ApiKey>(`/keys/${encodeURIComponent(edit.key.id)}`, {
        method: "PATCH",
        body: limitsBody(edit.draft),
      }),
    onSuccess: () => {
      setEditing(null);
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => call(`/keys/${encodeURIComponent(id)}/revoke`, { method: "POST" }),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <>
      <PageHeader title="API keys">
        {isOwner ? (
          <button type="button" onClick={() => setCreating(true)}>
            Create key
          </button>
        ) : null}
      </PageHeader>
      <p className="lead">
        Keys authenticate calls to the HTTP API. <code>svc_live_…</code> keys are charged;{" "}
        <code>svc_test_…</code> keys never are. A key's full value is shown once, when it is created.
      </p>
      {isOwner ? null : <OwnersOnly what="create and revoke API keys" />}
      {keys.isPending ? <Loading /> : null}
      <ErrorMessage error={keys.error} />
      {keys.data && keys.data.keys.length === 0 ? <Empty>No keys yet.</Empty> : null}
      {keys.data && keys.data.keys.length > 0 ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Mode</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Spent (today / month)</th>
                <th scope="col">Limits</th>
                <th scope="col">Status</th>
                {isOwner ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td>{k.name || <span className="muted">unnamed</span>}</td>
                  <td>
                    <span className={`badge badge-${k.mode}`}>{k.mode}</span>
                  </td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>
                    <Time value={k.created_at} />
                  </td>
                  <td>
                    {k.last_used_at ? <Time value={k.last_used_at} /> : <span className="muted">never</span>}
                  </td>
                  <td data-testid="key-spend">
                    {k.spend.today.toLocaleString()} / {k.spend.this_month.toLocaleString()}
                  </td>
                  <td data-testid="key-limits">
                    {k.allowed_models ? <div>Only {k.allowed_models.join(", ")}</div> : null}
                    {k.expires_at ? (
                      <div>
                        Until <Time value={k.expires_at} />
                      </div>
                    ) : null}
                    {k.budget ? (
                      <div data-testid="key-budget">
                        <meter min={0} max={k.budget.tokens} value={k.budget.used} />{" "}
                        {k.budget.used.toLocaleString()} of {k.budget.tokens.toLocaleString()} tokens{" "}
                        {PERIOD_WORDS[k.budget.period]}
                      </div>
                    ) : null}
                    {k.max_concurrent_runs ? <div>{k.max_concurrent_runs} at once</div> : null}
                    {!k.allowed_models && !k.expires_at && !k.budget && !k.max_concurrent_runs ? (
                      <span className="muted">none</span>
                    ) : null}
                  </td>
                  <td>
                    {k.revoked_at ? (
                      <span className="badge badge-failed">revoked</span>
                    ) : expired(k) ? (
                      <span className="badge badge-failed">expired</span>
                    ) : (
                      <span className="badge badge-completed">active</span>
                    )}
                  </td>
                  {isOwner ? (
                    <td>
                      {k.revoked_at ? null : (
                        <>
                          <button
                            type="button"
                            className="secondary"
                            onClick={() => setEditing({ key: k, draft: draftOf(k) })}
                          >
                            Edit limits<span className="visually-hidden"> of {k.name}</span>
                          </button>{" "}
                          <button type="button" className="danger" onClick={() => setRevoking(k)}>
                            Revoke<span className="visually-hidden"> {k.name}</span>
                          </button>
                        </>
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}

      <Dialog open={creating} title="Create an API key" onClose={() => setCreating(false)}>
        <form onSubmit={submit}>
          <label>
            Name
            <input
              required
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. production server"
            />
          </label>
          <fieldset>
            <legend>Mode</legend>
            <label className="inline">
              <input
                type="radio"
                name="key-mode"
                checked={newMode === "live"}
                onChange={() => setNewMode("live")}
              />
              Live (charged)
            </label>
            <label className="inline">
              <input
                type="radio"
                name="key-mode"
                checked={newMode === "test"}
                onChange={() => setNewMode("test")}
              />
              Test (never charged)
            </label>
          </fieldset>
          <LimitsFields draft={limits} onChange={setLimits} />
          <ErrorMessage error={create.error} />
          <FormActions submit="Create" busy={create.isPending} onCancel={() => setCreating(false)} />
        </form>
      </Dialog>

      <Dialog
        open={editing !== null}
        title={`Limits of ${editing?.key.name || editing?.key.prefix || "the key"}`}
        onClose={() => setEditing(null)}
      >
        {editing ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              update.mutate(editing);
            }}
          >
            <LimitsFields draft={editing.draft} onChange={(draft) => setEditing({ ...editing, draft })} />
            <ErrorMessage error={update.error} />
            <FormActions submit="Save limits" busy={update.isPending} onCancel={() => setEditing(null)} />
          </form>
        ) : null}
      </Dialog>

      <ShownOnce
        value={created?.key ?? null}
        title="Your new API key"
        what="key"
        onClose={() => setCreated(null)}
      />

      <Confirm
        open={revoking !== null}
        title="Revoke this key?"
        action="Revoke key"
        busy={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onClose={() => setRevoking(null)}
      >
        <p>
          <strong>{revoking?.name || revoking?.prefix}</strong> stops working within seconds, everywhere it is
          used. This cannot be undone.
        </p>
      </Confirm>
    </>
  );
}
