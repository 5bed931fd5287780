import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { call, scoped, type Endpoint } from "../api";
import { useConsole } from "../session";
import {
  CopyButton,
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

// The API's EVENT_TYPES (packages/core/src/webhooks/events.ts); the API refuses any other.
export const EVENTS = [
  "run.started",
  "run.completed",
  "run.failed",
  "run.canceled",
  "account.balance_low",
  "key.budget_reached",
];

export function EventChoices({ value, onChange }: { value: string[]; onChange(events: string[]): void }) {
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENTS.map((event) => (
        <label key={event} className="inline">
          <input
            type="checkbox"
            checked={value.includes(event)}
            onChange={(e) =>
              onChange(e.target.checked ? [...value, event] : value.filter((v) => v !== event))
            }
          />
          <code>{event}</code>
        </label>
      ))}
    </fieldset>
  );
}

/** The account's default signing secret of per-run webhook_url deliveries (owners reveal it). */
function DefaultSecret() {
  const { mode, isOwner } = useConsole();
  const [showDefault, setShowDefault] = useState(false);
  const defaultSecret = useQuery({
    queryKey: ["scoped", mode, "default-secret"],
    queryFn: () => call<{ signing_secret: string }>(scoped(mode, "/webhooks/default/secret")),
    enabled: showDefault && isOwner,
  });
  return (
    <section aria-labelledby="default-title" className="card">
      <h2 id="default-title">Default secret for per-run webhook_url</h2>
      <p>
        Runs started with a <code>webhook_url</code> are signed with this account's {mode} default secret.
      </p>
      {isOwner ? (
        showDefault ? (
          <>
            <ErrorMessage error={defaultSecret.error} />
            {defaultSecret.data ? (
              <p className="secret">
                <code>{defaultSecret.data.signing_secret}</code>{" "}
                <CopyButton text={defaultSecret.data.signing_secret} />
              </p>
            ) : (
              <Loading />
            )}
          </>
        ) : (
          <button type="button" className="secondary" onClick={() => setShowDefault(true)}>
            Reveal default secret
          </button>
        )
      ) : (
        <p className="muted">Only owners can see secrets.</p>
      )}
    </section>
  );
}

export function Webhooks() {
  const { mode, isOwner } = useConsole();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState(["run.completed", "run.failed"]);
  const [secret, setSecret] = useState<string | null>(null);
  const endpoints = useQuery({
    queryKey: ["scoped", mode, "webhooks"],
    queryFn: () => call<{ webhooks: Endpoint[] }>(scoped(mode, "/webhooks")),
  });
  const create = useMutation({
    mutationFn: () =>
      call<{ signing_secret: string }>(scoped(mode, "/webhooks"), { method: "POST", body: { url, events } }),
    onSuccess: (data) => {
      setCreating(false);
      setUrl("");
      setSecret(data.signing_secret);
      void queryClient.invalidateQueries({ queryKey: ["scoped", mode, "webhooks"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <PageHeader title="Webhooks">
        {isOwner ? (
          <button type="button" onClick={() => setCreating(true)}>
            Add endpoint
          </button>
        ) : null}
      </PageHeader>
      <p className="lead">
        Signed <code>POST</code>s (Standard Webhooks) to your HTTPS endpoints when {mode} runs end. Failed
        deliveries are retried with backoff; every attempt is recorded.
      </p>
      {isOwner ? null : <OwnersOnly what="add, change or delete webhook endpoints and see their secrets" />}
      <ErrorMessage error={endpoints.error} />
      {endpoints.isPending ? <Loading /> : null}
      {endpoints.data?.webhooks.length === 0 ? <Empty>No {mode} endpoints yet.</Empty> : null}
      {endpoints.data?.webhooks.length ? (
        <ul className="cards">
          {endpoints.data.webhooks.map((e) => (
            <li key={e.id} className="card">
              <Link to={`/webhooks/${e.id}`} className="card-title">
                {e.url}
              </Link>
              <p>
                <span className={`badge badge-${e.status === "active" ? "completed" : "failed"}`}>
                  {e.status}
                </span>{" "}
                {e.events.map((ev) => (
                  <code key={ev} className="tag">
                    {ev}
                  </code>
                ))}
              </p>
              <p className="muted small">
                Created <Time value={e.created_at} />
                {e.consecutive_failures ? ` · ${e.consecutive_failures} failures in a row` : ""}
              </p>
            </li>
          ))}
        </ul>
      ) : null}

      <DefaultSecret />

      <Dialog open={creating} title="Add a webhook endpoint" onClose={() => setCreating(false)}>
        <form onSubmit={submit}>
          <label>
            URL (https)
            <input
              type="url"
              required
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://example.com/hooks"
            />
          </label>
          <EventChoices value={events} onChange={setEvents} />
          <ErrorMessage error={create.error} />
          <FormActions submit="Add endpoint" busy={create.isPending} onCancel={() => setCreating(false)} />
        </form>
      </Dialog>
      <ShownOnce value={secret} title="Endpoint added" what="secret" onClose={() => setSecret(null)} />
    </>
  );
}
