// Editing a model: its price, status and, for a Cog model, its servers and their concurrency.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call, type OperatorModel } from "../../api";
import { CountInput, DialogForm, ReasonField } from "../../ui";

interface Edit {
  model: OperatorModel;
  price: string;
  status: string;
  servers: string;
  concurrency: string;
  reason: string;
}

/** The editor's state and dialog: `edit(model)` opens it filled with what the model is now. */
export function useModelEditor() {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Edit | null>(null);
  const save = useMutation({
    mutationFn: (edit: Edit) =>
      call(`/operator/models/${edit.model.id}`, {
        method: "PATCH",
        body: {
          tokens_per_unit: Number(edit.price),
          status: edit.status,
          ...(edit.model.runner !== "builtin" && {
            servers: edit.servers
              .split(/\s+/)
              .map((s) => s.trim())
              .filter(Boolean),
            concurrency: Number(edit.concurrency || 1),
          }),
          reason: edit.reason,
        },
      }),
    onSuccess: () => {
      setEditing(null);
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  const edit = (m: OperatorModel) =>
    setEditing({
      model: m,
      price: String(m.tokens_per_unit),
      status: m.status,
      servers: m.servers.join("\n"),
      concurrency: String(m.concurrency ?? 1),
      reason: "",
    });
  const dialog = (
    <DialogForm
      open={editing !== null}
      title={`Edit ${editing?.model.id ?? ""}`}
      onClose={() => setEditing(null)}
      onSubmit={() => editing && save.mutate(editing)}
      error={save.error}
      submit="Save model"
      busy={save.isPending}
    >
      {editing ? (
        <>
          <label>
            Tokens per {editing.model.unit}
            <input
              type="number"
              min={0}
              step={1}
              required
              value={editing.price}
              onChange={(e) => setEditing({ ...editing, price: e.target.value })}
            />
          </label>
          <label>
            Status
            <select
              value={editing.status}
              onChange={(e) => setEditing({ ...editing, status: e.target.value })}
            >
              {[...new Set(["active", "deprecated", "disabled", editing.status])].map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
            <span className="hint">Only active models are listed and runnable.</span>
          </label>
          {editing.model.runner !== "builtin" ? (
            <label>
              Servers (one URL per line)
              <textarea
                rows={4}
                value={editing.servers}
                onChange={(e) => setEditing({ ...editing, servers: e.target.value })}
              />
            </label>
          ) : null}
          {editing.model.runner !== "builtin" ? (
            <label>
              Predictions at once per server
              <CountInput
                value={editing.concurrency}
                onChange={(concurrency) => setEditing({ ...editing, concurrency })}
              />
              <span className="hint">The model's capacity is its healthy servers × this.</span>
            </label>
          ) : null}
          <ReasonField value={editing.reason} onChange={(reason) => setEditing({ ...editing, reason })} />
        </>
      ) : null}
    </DialogForm>
  );
  return { edit, dialog };
}
