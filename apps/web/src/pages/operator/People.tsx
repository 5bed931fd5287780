// An account's people: adding one, making an owner a member (or back), disabling or enabling;
// each change confirmed with its reason in a dialog.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { call, type OperatorAccountDetail } from "../../api";
import { DataTable } from "../../table";
import { DialogForm, PageHeader, ReasonField, Time } from "../../ui";

type Person = OperatorAccountDetail["people"][number];

interface Change {
  id: string;
  label: string;
  role?: "owner" | "member";
  disabled?: boolean;
  reason: string;
}

const noPerson = { email: "", password: "", role: "member" as "owner" | "member", reason: "" };

/** Adding a person to the account (an email, a password, a role), with the reason. */
function AddPersonDialog({
  open,
  path,
  onClose,
  onSaved,
}: {
  open: boolean;
  path: string;
  onClose(): void;
  onSaved(): void;
}) {
  const [person, setPerson] = useState(noPerson);
  const addPerson = useMutation({
    mutationFn: () => call(`${path}/people`, { method: "POST", body: person }),
    onSuccess: () => {
      onClose();
      setPerson(noPerson);
      onSaved();
    },
  });
  return (
    <DialogForm
      open={open}
      title="Add a person"
      onClose={onClose}
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
  );
}

/** A person's actions: another role, disabled or enabled (never an operator's, here). */
function PersonActions({ p, change }: { p: Person; change(c: Change): void }) {
  return p.role === "operator" ? null : (
    <>
      <button
        type="button"
        className="secondary"
        onClick={() =>
          change({
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
          change({
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
  );
}

export function People({ people, path, onSaved }: { people: Person[]; path: string; onSaved(): void }) {
  const [adding, setAdding] = useState(false);
  const [changing, setChanging] = useState<Change | null>(null);
  const changePerson = useMutation({
    mutationFn: (change: Change) =>
      call(`/operator/people/${encodeURIComponent(change.id)}`, {
        method: "PATCH",
        body: { role: change.role, disabled: change.disabled, reason: change.reason },
      }),
    onSuccess: () => {
      setChanging(null);
      onSaved();
    },
  });
  const actions = (p: Person) => <PersonActions p={p} change={setChanging} />;
  return (
    <section aria-labelledby="people-title">
      <PageHeader title="People">
        <button type="button" className="secondary" onClick={() => setAdding(true)}>
          Add person
        </button>
      </PageHeader>
      <DataTable
        rows={people}
        rowKey={(p) => p.id}
        rowProps={(p) => ({ "data-person": p.email })}
        columns={[
          { header: "Email", cell: (p) => p.email },
          { header: "Role", cell: (p) => p.role },
          {
            header: "Last sign-in",
            cell: (p) =>
              p.last_sign_in_at ? <Time value={p.last_sign_in_at} /> : <span className="muted">never</span>,
          },
          {
            header: "Status",
            cell: (p) =>
              p.disabled_at ? (
                <span className="badge badge-failed">disabled</span>
              ) : (
                <span className="badge badge-completed">active</span>
              ),
          },
          { header: "Actions", hiddenHeader: true, cell: actions },
        ]}
      />
      <AddPersonDialog open={adding} path={path} onClose={() => setAdding(false)} onSaved={onSaved} />
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
    </section>
  );
}
