// Operator actions as a table: the operators' audit log (every account and model) and an owner's
// security log (what operators did to their account).
import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { call, query, type AuditEntry } from "../api";
import { DataTable } from "../table";
import { Empty, ErrorMessage, Loading, PageHeader, Time } from "../ui";

export function AuditLog(props: {
  title: string;
  lead: string;
  path: string;
  queryKey: string[];
  /** Targets link to the operator's account page. */
  linkAccounts?: boolean;
}) {
  const audit = useInfiniteQuery({
    queryKey: props.queryKey,
    queryFn: ({ pageParam }) =>
      call<{ entries: AuditEntry[]; next_cursor: string | null }>(
        `${props.path}${query({ limit: 50, cursor: pageParam })}`,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <>
      <PageHeader title={props.title} />
      <p className="lead">{props.lead}</p>
      {audit.isPending ? <Loading /> : null}
      <ErrorMessage error={audit.error} />
      {!audit.isPending && entries.length === 0 ? <Empty>No operator action yet.</Empty> : null}
      {entries.length ? (
        <DataTable
          rows={entries}
          rowKey={(e) => e.id}
          rowProps={(e) => ({ "data-audit-action": e.action })}
          columns={[
            { header: "When", cell: (e) => <Time value={e.created_at} /> },
            { header: "Who", cell: (e) => e.actor_email },
            { header: "What", cell: (e) => e.action },
            {
              header: "On",
              cell: (e) =>
                props.linkAccounts && e.account_id ? (
                  <Link to={`/operator/accounts/${e.account_id}`}>
                    <code>{e.target_id}</code>
                  </Link>
                ) : (
                  <code>{e.target_id}</code>
                ),
            },
            { header: "Reason", cell: (e) => e.reason },
            { header: "Before", cell: (e) => <State value={e.before} /> },
            { header: "After", cell: (e) => <State value={e.after} /> },
          ]}
        />
      ) : null}
      {audit.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => void audit.fetchNextPage()}>
          Older entries
        </button>
      ) : null}
    </>
  );
}

/** A state before or after: one "field: value" line each, nested values as JSON. */
function State({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <>—</>;
  if (typeof value !== "object" || Array.isArray(value)) return <code>{JSON.stringify(value)}</code>;
  return (
    <ul className="state">
      {Object.entries(value).map(([field, v]) => (
        <li key={field}>
          {field}: <code>{typeof v === "string" ? v : JSON.stringify(v)}</code>
        </li>
      ))}
    </ul>
  );
}

/** An owner's view: what operators of the service did to this account, and why. */
export function SecurityLog() {
  return (
    <AuditLog
      title="Security log"
      lead="What operators of the service did to this account (tokens, people, keys, limits): who, when, and the reason they gave. An operator may, for instance, add an owner to help someone locked out; it shows here."
      path="/security-log"
      queryKey={["security-log"]}
    />
  );
}
