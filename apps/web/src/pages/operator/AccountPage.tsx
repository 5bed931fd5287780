// One account for its operator: tokens, a grant or deduction, its fair share, its people, keys and
// newest ledger entries.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "react-router";
import { call, type OperatorAccountDetail } from "../../api";
import { DataTable } from "../../table";
import { Empty, ErrorMessage, Loading, number, PageHeader, Stat, Time } from "../../ui";
import { FairShare } from "./FairShare";
import { People } from "./People";
import { TokenAdjustment } from "./TokenAdjustment";

export function OperatorAccountPage() {
  const { accountId = "" } = useParams();
  const queryClient = useQueryClient();
  const path = `/operator/accounts/${encodeURIComponent(accountId)}`;
  const detail = useQuery({
    queryKey: ["operator", "account", accountId],
    queryFn: () => call<OperatorAccountDetail>(path),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["operator"] });
  if (detail.isPending) return <Loading />;
  if (detail.error) return <ErrorMessage error={detail.error} />;
  const { account, people, keys, ledger } = detail.data;
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
      <TokenAdjustment path={path} onSaved={refresh} />
      <FairShare account={account} path={path} onSaved={refresh} />
      <People people={people} path={path} onSaved={refresh} />
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
        <DataTable
          rows={ledger}
          rowKey={(e) => e.id}
          columns={[
            { header: "When", cell: (e) => <Time value={e.created_at} /> },
            { header: "Kind", cell: (e) => e.kind.toLowerCase() },
            { header: "Amount", numeric: true, cell: (e) => number.format(e.amount) },
            { header: "Note", cell: (e) => e.note || (e.run_id ? <code>{e.run_id}</code> : null) },
          ]}
        />
      </section>
    </>
  );
}
