import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Link } from "react-router";
import { ApiFailure, type RunStatus } from "./api";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  return <time dateTime={value}>{dateTime.format(new Date(value))}</time>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status.toLowerCase()}</span>;
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : null;
  return (
    <div className="error" role="alert">
      <p>{failure?.message ?? (error as Error).message ?? "Something went wrong."}</p>
      {failure?.details.length ? (
        <ul>
          {failure.details.map((d) => (
            <li key={`${d.path}:${d.message}`}>
              <code>{d.path}</code>: {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          setCopied(false);
        }
      }}
    >
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </button>
  );
}

/** A modal dialog (the platform's <dialog>: focus kept inside, Escape closes). */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose(): void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} onClose={onClose} aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** A dialog holding one form: its fields, the error of its last submit, and Cancel / submit. */
export function DialogForm({
  open,
  title,
  onClose,
  onSubmit,
  error,
  submit,
  busy,
  children,
}: {
  open: boolean;
  title: string;
  onClose(): void;
  onSubmit(): void;
  error: unknown;
  submit: string;
  busy: boolean;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        {children}
        <ErrorMessage error={error} />
        <FormActions submit={submit} busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1 tabIndex={-1}>{title}</h1>
      {children ? <div className="actions">{children}</div> : null}
    </header>
  );
}

/**
 * Why an owner's action is not on the page: a member sees what is missing and who can do it,
 * rather than wondering where the button went.
 */
export function OwnersOnly({ what }: { what: string }) {
  return (
    <p className="notice" role="note">
      Only an owner of this account can {what}. You are a member: ask an owner to do it, or to make you an
      owner.
    </p>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="muted" role="status">
      {what}…
    </p>
  );
}

export const isActive = (status: RunStatus) => status === "QUEUED" || status === "EXECUTING";

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** A secret shown once (a new API key, a signing secret), with a copy button. */
export function ShownOnce({
  value,
  title,
  what,
  onClose,
}: {
  value: string | null;
  title: string;
  what: string;
  onClose(): void;
}) {
  return (
    <Dialog open={value !== null} title={title} onClose={onClose}>
      <p>
        Copy the {what} now and store it somewhere safe: <strong>it will not be shown again.</strong>
      </p>
      <p className="secret">
        <code data-testid="shown-once">{value}</code>
      </p>
      <div className="dialog-actions">
        {value ? <CopyButton text={value} label={`Copy ${what}`} /> : null}
        <button type="button" onClick={onClose}>
          I have stored it
        </button>
      </div>
    </Dialog>
  );
}

/** A whole number of at least 1, or empty (no limit), as text the form keeps. */
export function CountInput({
  value,
  onChange,
  placeholder,
}: {
  value: string;
  onChange(value: string): void;
  placeholder?: string;
}) {
  return (
    <input
      type="number"
      min={1}
      step={1}
      inputMode="numeric"
      value={value}
      placeholder={placeholder}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** Why an operator acts: required, and shown in the audit log and the account's security log. */
export function ReasonField({ value, onChange }: { value: string; onChange(value: string): void }) {
  return (
    <label>
      Reason
      <input required maxLength={500} value={value} onChange={(e) => onChange(e.target.value)} />
      <span className="hint">Kept in the audit log; the account's owners see it in their security log.</span>
    </label>
  );
}

export function FormActions({ submit, busy, onCancel }: { submit: string; busy: boolean; onCancel(): void }) {
  return (
    <div className="dialog-actions">
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" disabled={busy}>
        {submit}
      </button>
    </div>
  );
}

export function Confirm({
  open,
  title,
  action,
  busy,
  error,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  action: string;
  busy?: boolean;
  error?: unknown;
  onConfirm(): void;
  onClose(): void;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      {children}
      <ErrorMessage error={error} />
      <div className="dialog-actions">
        <button type="button" className="secondary" onClick={onClose}>
          Keep it
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {action}
        </button>
      </div>
    </Dialog>
  );
}

/** A page whose subject could not be loaded (unknown id, another mode, the service away). */
export function LoadFailed({
  title,
  error,
  back,
}: {
  title: string;
  error: unknown;
  back: [string, string];
}) {
  return (
    <>
      <PageHeader title={title} />
      <ErrorMessage error={error} />
      <p>
        <Link to={back[0]}>{back[1]}</Link>
      </p>
    </>
  );
}

/** Token counts and other whole numbers, in the reader's locale. */
export const number = new Intl.NumberFormat();

/** A figure with its label and what it means; its test id is stat-<label in lower case>. */
export function Stat({ label, value, hint }: { label: string; value: number | undefined; hint: string }) {
  return (
    <div className="stat" title={hint}>
      <span className="stat-label">{label}</span>
      <span className="stat-value" data-testid={`stat-${label.toLowerCase()}`}>
        {value === undefined ? "…" : number.format(value)}
      </span>
      <span className="muted small">{hint}</span>
    </div>
  );
}

/** A form of its own card: a titled section whose form sends `onSubmit`, its error under it. */
export function CardForm({
  id,
  title,
  onSubmit,
  error,
  children,
}: {
  id: string;
  title: string;
  onSubmit(): void;
  error: unknown;
  children: ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <form
        className="filters"
        aria-label={title}
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        {children}
      </form>
      <ErrorMessage error={error} />
    </section>
  );
}
