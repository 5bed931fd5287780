// Personal weights: the account's LoRAs in this mode (uploaded here with a progress bar, or by
// the API), what their headers say of them, and deleting them. A run names them in its loras.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { call, scoped, uploadWeights, type Weights as WeightsView } from "../api";
import { useConsole } from "../session";
import { DataTable, type Column } from "../table";
import { Confirm, Empty, ErrorMessage, Loading, number, PageHeader, Time } from "../ui";

const COLUMNS: Column<WeightsView>[] = [
  {
    header: "Name",
    cell: (w) => (
      <>
        {w.name}
        {w.published ? (
          <>
            {" "}
            <span className="badge">published</span>
          </>
        ) : null}
      </>
    ),
  },
  { header: "Id", cell: (w) => <code>{w.id}</code> },
  { header: "Rank", numeric: true, cell: (w) => w.rank ?? <span className="muted">mixed</span> },
  { header: "Layers", numeric: true, cell: (w) => w.layers.length },
  { header: "Size", numeric: true, cell: (w) => `${number.format(Math.ceil(w.size / 1024))} KiB` },
  { header: "Base", cell: (w) => w.base_hints.join(", ") || <span className="muted">not said</span> },
  { header: "Added", cell: (w) => <Time value={w.created_at} /> },
];

/** A .safetensors file sent with its progress shown; the list refreshed once it is there. */
function UploadWeights() {
  const { mode } = useConsole();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState("");
  const [progress, setProgress] = useState<number | null>(null);
  // A new input once a file is taken: the chosen file's name does not linger.
  const [chooser, setChooser] = useState(0);
  const upload = useMutation({
    mutationFn: () => uploadWeights(mode, file!, name.trim(), setProgress),
    onSuccess: () => {
      setFile(null);
      setName("");
      setChooser((n) => n + 1);
      void queryClient.invalidateQueries({ queryKey: ["scoped", mode, "weights"] });
    },
    onSettled: () => setProgress(null),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) upload.mutate();
  };
  return (
    <form className="card filters" onSubmit={submit} aria-label="Upload weights">
      <label>
        LoRA file (.safetensors)
        <input
          key={chooser}
          type="file"
          accept=".safetensors"
          required
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
      </label>
      <label>
        Name (optional)
        <input
          value={name}
          maxLength={200}
          onChange={(e) => setName(e.target.value)}
          placeholder="brand-style"
        />
      </label>
      <button type="submit" disabled={!file || upload.isPending}>
        Upload
      </button>
      {progress !== null ? (
        <progress aria-label="Upload progress" max={1} value={progress}>
          {Math.round(progress * 100)}%
        </progress>
      ) : null}
      <span className="hint">
        Only safetensors: its header is checked before anything is kept (a .ckpt, .pt or .bin is refused).
      </span>
      <ErrorMessage error={upload.error} />
    </form>
  );
}

export function Weights() {
  const { mode } = useConsole();
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<WeightsView | null>(null);
  const weights = useQuery({
    queryKey: ["scoped", mode, "weights"],
    queryFn: () => call<{ weights: WeightsView[] }>(scoped(mode, "/weights?limit=100")),
  });
  const remove = useMutation({
    mutationFn: (id: string) =>
      call(scoped(mode, `/weights/${encodeURIComponent(id)}`), { method: "DELETE" }),
    onSuccess: () => {
      setDeleting(null);
      void queryClient.invalidateQueries({ queryKey: ["scoped", mode, "weights"] });
    },
  });
  const list = weights.data?.weights ?? [];
  return (
    <>
      <PageHeader title="Weights" />
      <p className="lead">
        Your LoRAs ({mode}): name them in a run's <code>loras</code> (models that take them say so in their
        input) by their id. They are kept until you delete them. Weights marked published are the operator's,
        for every account.
      </p>
      <UploadWeights />
      <ErrorMessage error={weights.error} />
      {weights.isPending ? <Loading /> : null}
      {!weights.isPending && !list.length ? <Empty>No {mode} weights yet.</Empty> : null}
      {list.length ? (
        <DataTable
          rows={list}
          rowKey={(w) => w.id}
          rowProps={(w) => ({ "data-weights": w.name })}
          columns={[
            ...COLUMNS,
            {
              header: "Actions",
              hiddenHeader: true,
              // Published weights are deleted by their owner through the API, not from every account's list.
              cell: (w) =>
                w.published ? null : (
                  <button type="button" className="danger" onClick={() => setDeleting(w)}>
                    Delete<span className="visually-hidden"> {w.name}</span>
                  </button>
                ),
            },
          ]}
        />
      ) : null}
      <Confirm
        open={deleting !== null}
        title="Delete these weights?"
        action="Delete weights"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onClose={() => setDeleting(null)}
      >
        <p>
          <strong>{deleting?.name}</strong> goes, its bytes with it: runs made with it that have not started
          fail.
        </p>
      </Confirm>
    </>
  );
}
