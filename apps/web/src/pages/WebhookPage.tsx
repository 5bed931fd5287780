import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { call, query, scoped, type Delivery, type Endpoint } from "../api";
import { useConsole } from "../session";
import {
  Confirm,
  Empty,
  ErrorMessage,
  LoadFailed,
  Loading,
  OwnersOnly,
  PageHeader,
  ShownOnce,
  Time,
} from "../ui";
import { EventChoices } from "./Webhooks";

/** One delivery: its event, its run, and every attempt (when, status code, latency, error). */
function DeliveryItem({ d, onRedeliver }: { d: Delivery; onRedeliver?: () => void }) {
  return (
    <li className="card" data-delivery-id={d.id}>
      <div className="delivery-head">
        <span
          className={`badge badge-${d.status === "succeeded" ? "completed" : d.status === "failed" ? "failed" : "queued"}`}
        >
          {d.status}
        </span>
        <code>{d.event}</code>
        {d.run_id ? (
          <Link to={`/runs/${d.run_id}`}>
            <code>{d.run_id}</code>
          </Link>
        ) : null}
        <Time value={d.created_at} />
        {onRedeliver ? (
          <button type="button" className="secondary" onClick={onRedeliver}>
            Redeliver
          </button>
        ) : null}
      </div>
      {d.attempts.length ? (
        <table className="attempts">
          <caption className="visually-hidden">Attempts of delivery {d.id}</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Started</th>
              <th scope="col">Status code</th>
              <th scope="col" className="num">
                Latency
              </th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {d.attempts.map((a) => (
              <tr key={a.number} className={a.success ? "ok" : "bad"}>
                <td>{a.number}</td>
                <td>
                  <Time value={a.started_at} />
                </td>
                <td>{a.status_code ?? "—"}</td>
                <td className="num">{a.duration_ms} ms</td>
                <td>{a.error_class ?? (a.success ? "" : "—")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted small">No attempt yet.</p>
      )}
    </li>
  );
}

/** The endpoint's URL, status and events (which an owner may change in place). */
function EndpointFacts({
  e,
  isOwner,
  events,
  setEvents,
  saveEvents,
}: {
  e: Endpoint;
  isOwner: boolean;
  events: string[] | null;
  setEvents(events: string[] | null): void;
  saveEvents(events: string[]): void;
}) {
  return (
    <dl className="facts">
      <div>
        <dt>URL</dt>
        <dd>
          <code>{e.url}</code>
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${e.status === "active" ? "completed" : "failed"}`}>{e.status}</span>
          {e.disabled_at ? (
            <>
              {" "}
              since <Time value={e.disabled_at} />
            </>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>Events</dt>
        <dd>
          {events === null ? (
            <>
              {e.events.map((ev) => (
                <code key={ev} className="tag">
                  {ev}
                </code>
              ))}{" "}
              {isOwner ? (
                <button type="button" className="link" onClick={() => setEvents(e.events)}>
                  Edit events
                </button>
              ) : null}
            </>
          ) : (
            <form
              onSubmit={(ev) => {
                ev.preventDefault();
                saveEvents(events);
              }}
            >
              <EventChoices value={events} onChange={setEvents} />
              <button type="submit">Save events</button>{" "}
              <button type="button" className="secondary" onClick={() => setEvents(null)}>
                Cancel
              </button>
            </form>
          )}
        </dd>
      </div>
    </dl>
  );
}

/** What an endpoint's page can do: send a test event, and for owners enable, rotate, delete. */
function EndpointActions({
  isOwner,
  disabled,
  busy,
  act,
  onDelete,
}: {
  isOwner: boolean;
  disabled: boolean;
  busy: boolean;
  act(path: string): void;
  onDelete(): void;
}) {
  return (
    <>
      <button type="button" className="secondary" onClick={() => act("/test")} disabled={!isOwner || busy}>
        Send test event
      </button>
      {isOwner && disabled ? (
        <button type="button" onClick={() => act("/enable")}>
          Enable
        </button>
      ) : null}
      {isOwner ? (
        <>
          <button type="button" className="secondary" onClick={() => act("/rotate-secret")}>
            Rotate secret
          </button>
          <button type="button" className="danger" onClick={() => onDelete()}>
            Delete
          </button>
        </>
      ) : null}
    </>
  );
}

export function WebhookPage() {
  const { webhookId = "" } = useParams();
  const { mode, isOwner } = useConsole();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const base = scoped(mode, `/webhooks/${encodeURIComponent(webhookId)}`);
  const [events, setEvents] = useState<string[] | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const endpoint = useQuery({
    queryKey: ["scoped", mode, "webhook", webhookId],
    queryFn: () => call<Endpoint>(base),
  });
  const deliveries = useInfiniteQuery({
    queryKey: ["scoped", mode, "deliveries", webhookId],
    queryFn: ({ pageParam }) =>
      call<{ deliveries: Delivery[]; next_cursor: string | null }>(
        `${base}/deliveries${query({ limit: 20, cursor: pageParam })}`,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.deliveries.some((d) => d.status === "pending")) ? 2_000 : false,
  });
  const refresh = () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === "scoped" });
  const action = useMutation({
    mutationFn: (a: { path: string; method?: "POST" | "PATCH" | "DELETE"; body?: unknown }) =>
      call<Record<string, unknown>>(`${base}${a.path}`, { method: a.method ?? "POST", body: a.body }),
    onSuccess: (data, a) => {
      if (a.path === "/rotate-secret") setSecret(String(data.signing_secret));
      if (a.method === "PATCH") setEvents(null);
      if (a.method === "DELETE") {
        setDeleting(false);
        void navigate("/webhooks");
      }
      void refresh();
    },
  });

  if (endpoint.isPending) return <Loading />;
  if (endpoint.isError)
    return (
      <LoadFailed title="Webhook endpoint" error={endpoint.error} back={["/webhooks", "Back to webhooks"]} />
    );
  const e = endpoint.data;
  const list = deliveries.data?.pages.flatMap((p) => p.deliveries) ?? [];
  return (
    <>
      <PageHeader title="Webhook endpoint">
        <EndpointActions
          isOwner={isOwner}
          disabled={e.status === "disabled"}
          busy={action.isPending}
          act={(path) => action.mutate({ path })}
          onDelete={() => setDeleting(true)}
        />
      </PageHeader>
      {isOwner ? null : (
        <OwnersOnly what="send test events, enable, rotate the secret of, delete or redeliver to an endpoint" />
      )}
      <ErrorMessage error={action.error} />
      <EndpointFacts
        e={e}
        isOwner={isOwner}
        events={events}
        setEvents={setEvents}
        saveEvents={(chosen) => action.mutate({ path: "", method: "PATCH", body: { events: chosen } })}
      />

      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries</h2>
        <ErrorMessage error={deliveries.error} />
        {deliveries.isPending ? <Loading /> : null}
        {!deliveries.isPending && list.length === 0 ? (
          <Empty>No deliveries yet. Send a test event to try the endpoint.</Empty>
        ) : null}
        <ul className="deliveries">
          {list.map((d) => (
            <DeliveryItem
              key={d.id}
              d={d}
              onRedeliver={
                isOwner
                  ? () => action.mutate({ path: `/deliveries/${encodeURIComponent(d.id)}/redeliver` })
                  : undefined
              }
            />
          ))}
        </ul>
        {deliveries.hasNextPage ? (
          <button type="button" className="secondary" onClick={() => void deliveries.fetchNextPage()}>
            Older deliveries
          </button>
        ) : null}
      </section>

      <ShownOnce value={secret} title="New signing secret" what="secret" onClose={() => setSecret(null)} />
      <Confirm
        open={deleting}
        title="Delete this endpoint?"
        action="Delete endpoint"
        busy={action.isPending}
        onConfirm={() => action.mutate({ path: "", method: "DELETE" })}
        onClose={() => setDeleting(false)}
      >
        <p>
          Deliveries to <code>{e.url}</code> stop, and its delivery log is deleted with it.
        </p>
      </Confirm>
    </>
  );
}
