import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { call, type ApiKey, type Mode } from "../api";
import { useConsole } from "../session";
import {
  Confirm,
  Dialog,
  Empty,
  ErrorMessage,
  Loading,
  OwnersOnly,
  PageHeader,
  ShownOnce,
  Time,
} from "../ui";

export function Keys() {
  const { isOwner, mode } = useConsole();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => call<{ keys: ApiKey[] }>("/keys") });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [name, setName] = useState("");
  const [newMode, setNewMode] = useState<Mode>(mode);

  const create = useMutation({
    mutationFn: () =>
      call<ApiKey & { key: string }>("/keys", { method: "POST", body: { name, mode: newMode } }),
    onSuccess: (key) => {
      setCreating(false);
      setName("");
      setCreated(key);
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
                    <code>{k.prefix}…</code>
                  </td>
                  <td>
                    <Time value={k.created_at} />
                  </td>
                  <td>
                    {k.last_used_at ? <Time value={k.last_used_at} /> : <span className="muted">never</span>}
                  </td>
                  <td>
                    {k.revoked_at ? (
                      <span className="badge badge-failed">revoked</span>
                    ) : (
                      <span className="badge badge-completed">active</span>
                    )}
                  </td>
                  {isOwner ? (
                    <td>
                      {k.revoked_at ? null : (
                        <button type="button" className="danger" onClick={() => setRevoking(k)}>
                          Revoke<span className="visually-hidden"> {k.name}</span>
                        </button>
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
          <ErrorMessage error={create.error} />
          <div className="dialog-actions">
            <button type="button" className="secondary" onClick={() => setCreating(false)}>
              Cancel
            </button>
            <button type="submit" disabled={create.isPending}>
              Create
            </button>
          </div>
        </form>
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
