// The account's API keys: the table (spend, limits, status) and, for owners, create, edit and revoke.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call, type ApiKey, type ListedApiKey } from "../api";
import { useConsole } from "../session";
import { Confirm, Empty, ErrorMessage, Loading, OwnersOnly, PageHeader, Time } from "../ui";
import { CreateKeyDialog, EditLimitsDialog, expired, PERIOD_WORDS } from "./KeyDialogs";

function LimitsCell({ k }: { k: ListedApiKey }) {
  return (
    <td data-testid="key-limits">
      {k.allowed_models ? <div>Only {k.allowed_models.join(", ")}</div> : null}
      {k.expires_at ? (
        <div>
          Until <Time value={k.expires_at} />
        </div>
      ) : null}
      {k.budget ? (
        <div data-testid="key-budget">
          <meter min={0} max={k.budget.tokens} value={k.budget.used} /> {k.budget.used.toLocaleString()} of{" "}
          {k.budget.tokens.toLocaleString()} tokens {PERIOD_WORDS[k.budget.period]}
        </div>
      ) : null}
      {k.max_concurrent_runs ? <div>{k.max_concurrent_runs} at once</div> : null}
      {!k.allowed_models && !k.expires_at && !k.budget && !k.max_concurrent_runs ? (
        <span className="muted">none</span>
      ) : null}
    </td>
  );
}

function KeyRow({
  k,
  isOwner,
  onEdit,
  onRevoke,
}: {
  k: ListedApiKey;
  isOwner: boolean;
  onEdit(k: ApiKey): void;
  onRevoke(k: ApiKey): void;
}) {
  return (
    <tr data-key-id={k.id}>
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
      <td>{k.last_used_at ? <Time value={k.last_used_at} /> : <span className="muted">never</span>}</td>
      <td data-testid="key-spend">
        {k.spend.today.toLocaleString()} / {k.spend.this_month.toLocaleString()}
      </td>
      <LimitsCell k={k} />
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
              <button type="button" className="secondary" onClick={() => onEdit(k)}>
                Edit limits<span className="visually-hidden"> of {k.name}</span>
              </button>{" "}
              <button type="button" className="danger" onClick={() => onRevoke(k)}>
                Revoke<span className="visually-hidden"> {k.name}</span>
              </button>
            </>
          )}
        </td>
      ) : null}
    </tr>
  );
}

const COLUMNS = ["Name", "Mode", "Key", "Created", "Last used", "Spent (today / month)", "Limits", "Status"];

export function Keys() {
  const { isOwner } = useConsole();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => call<{ keys: ListedApiKey[] }>("/keys") });
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => call(`/keys/${encodeURIComponent(id)}/revoke`, { method: "POST" }),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });

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
                {COLUMNS.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
                {isOwner ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((k) => (
                <KeyRow key={k.id} k={k} isOwner={isOwner} onEdit={setEditing} onRevoke={setRevoking} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <CreateKeyDialog open={creating} onClose={() => setCreating(false)} />
      <EditLimitsDialog editing={editing} onClose={() => setEditing(null)} />
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
