// The key dialogs: a key's limits (create and edit), and creating a key (its full value shown once).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { call, scoped, type ApiKey, type Mode, type Model } from "../api";
import { useConsole } from "../session";
import { CountInput, Dialog, ErrorMessage, FormActions, ShownOnce } from "../ui";

type BudgetPeriod = NonNullable<ApiKey["budget"]>["period"];

/**
 * A key's limits as the form holds them: a date (yyyy-mm-dd, empty: none), model ids (none: all),
 * a budget in tokens per period and a number of runs at once (empty: none).
 */
export interface LimitsDraft {
  expires: string;
  models: string[];
  budget: string;
  period: BudgetPeriod;
  concurrency: string;
}

export const NO_LIMITS: LimitsDraft = { expires: "", models: [], budget: "", period: "day", concurrency: "" };

export const PERIOD_WORDS: Record<BudgetPeriod, string> = {
  day: "a day (UTC)",
  month: "a month (UTC)",
  total: "in all",
};

/** The API's fields for a draft: the key expires at the end of the chosen day, local time. */
export const limitsBody = (draft: LimitsDraft) => ({
  expires_at: draft.expires ? new Date(`${draft.expires}T23:59:59.999`).toISOString() : null,
  allowed_models: draft.models.length ? draft.models : null,
  budget: draft.budget ? { tokens: Number(draft.budget), period: draft.period } : null,
  max_concurrent_runs: draft.concurrency ? Number(draft.concurrency) : null,
});

export const draftOf = (k: ApiKey): LimitsDraft => ({
  expires: k.expires_at ? new Date(k.expires_at).toLocaleDateString("sv") : "",
  models: k.allowed_models ?? [],
  budget: k.budget ? String(k.budget.tokens) : "",
  period: k.budget?.period ?? "day",
  concurrency: k.max_concurrent_runs ? String(k.max_concurrent_runs) : "",
});

export const expired = (k: ApiKey) => k.expires_at !== null && Date.parse(k.expires_at) <= Date.now();

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

/** Creating a key: its name, mode and limits; its full value shown once, when made. */
export function CreateKeyDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const { mode } = useConsole();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [newMode, setNewMode] = useState<Mode>(mode);
  const [limits, setLimits] = useState<LimitsDraft>(NO_LIMITS);
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const create = useMutation({
    mutationFn: () =>
      call<ApiKey & { key: string }>("/keys", {
        method: "POST",
        body: { name, mode: newMode, ...limitsBody(limits) },
      }),
    onSuccess: (key) => {
      onClose();
      setName("");
      setLimits(NO_LIMITS);
      setCreated(key);
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <Dialog open={open} title="Create an API key" onClose={onClose}>
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
            {(
              [
                ["live", "Live (charged)"],
                ["test", "Test (never charged)"],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="inline">
                <input
                  type="radio"
                  name="key-mode"
                  checked={newMode === value}
                  onChange={() => setNewMode(value)}
                />
                {label}
              </label>
            ))}
          </fieldset>
          <LimitsFields draft={limits} onChange={setLimits} />
          <ErrorMessage error={create.error} />
          <FormActions submit="Create" busy={create.isPending} onCancel={onClose} />
        </form>
      </Dialog>
      <ShownOnce
        value={created?.key ?? null}
        title="Your new API key"
        what="key"
        onClose={() => setCreated(null)}
      />
    </>
  );
}

/** A key's limits changed (expiry, models, budget, runs at once). */
export function EditLimitsDialog({ editing, onClose }: { editing: ApiKey | null; onClose(): void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<LimitsDraft | null>(null);
  const current = draft ?? (editing ? draftOf(editing) : NO_LIMITS);
  const close = () => {
    setDraft(null);
    onClose();
  };
  const update = useMutation({
    mutationFn: (edit: { key: ApiKey; draft: LimitsDraft }) =>
      call<ApiKey>(`/keys/${encodeURIComponent(edit.key.id)}`, {
        method: "PATCH",
        body: limitsBody(edit.draft),
      }),
    onSuccess: () => {
      close();
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  return (
    <Dialog
      open={editing !== null}
      title={`Limits of ${editing?.name || editing?.prefix || "the key"}`}
      onClose={close}
    >
      {editing ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            update.mutate({ key: editing, draft: current });
          }}
        >
          <LimitsFields draft={current} onChange={setDraft} />
          <ErrorMessage error={update.error} />
          <FormActions submit="Save limits" busy={update.isPending} onCancel={close} />
        </form>
      ) : null}
    </Dialog>
  );
}
