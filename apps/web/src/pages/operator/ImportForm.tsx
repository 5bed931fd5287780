// What the catalogue's import forms share: the form's state, its reason, "replace", and the call
// (the operator's queries refreshed after it). Each kind of model server gives its own fields.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { call } from "../../api";
import { CardForm, ReasonField } from "../../ui";

export interface ImportFields {
  replace: boolean;
  reason: string;
}

export function ImportForm<F extends ImportFields>({
  id,
  title,
  path,
  empty,
  body,
  children,
}: {
  id: string;
  title: string;
  /** The operator route it posts to. */
  path: string;
  empty: F;
  /** The request's body from the form (may throw: its message is shown). */
  body(form: F): object;
  children(form: F, set: (form: F) => void): ReactNode;
}) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState(empty);
  const importModel = useMutation({
    mutationFn: async () =>
      call(path, { method: "POST", body: { ...body(form), replace: form.replace, reason: form.reason } }),
    onSuccess: () => {
      setForm(empty);
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  return (
    <CardForm id={id} title={title} onSubmit={() => importModel.mutate()} error={importModel.error}>
      {children(form, setForm)}
      <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
      <label className="inline">
        <input
          type="checkbox"
          checked={form.replace}
          onChange={(e) => setForm({ ...form, replace: e.target.checked })}
        />
        Replace a model with this id
      </label>
      <button type="submit" disabled={importModel.isPending}>
        Import
      </button>
    </CardForm>
  );
}
