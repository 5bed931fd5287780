// The catalogue's import forms, one per kind of model server, drawn from the API's own declaration
// of each import route's body (the SDK's IMPORT_FORMS, generated from the OpenAPI document): a
// kind's option appears here as soon as the route takes it. The reason is the operator forms' own.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { IMPORT_FORMS, type ImportForm as Declared } from "@svc/sdk";
import { call, type JsonSchema } from "../../api";
import { initialValues, SchemaForm, toInput } from "../../schemaForm";
import { CardForm, ReasonField } from "../../ui";

/** The form's fields: the body's, but the reason (ReasonField). */
const fieldsOf = (form: Declared): JsonSchema => {
  const { reason: _, ...properties } = form.schema.properties;
  return {
    type: "object",
    properties: properties as Record<string, JsonSchema>,
    required: form.schema.required?.filter((name) => name !== "reason"),
  };
};

function ImportForm({ form }: { form: Declared }) {
  const queryClient = useQueryClient();
  const schema = fieldsOf(form);
  const [values, setValues] = useState(() => initialValues(schema));
  const [reason, setReason] = useState("");
  const importModel = useMutation({
    mutationFn: async () => call(form.path, { method: "POST", body: { ...toInput(schema, values), reason } }),
    onSuccess: () => {
      setValues(initialValues(schema));
      setReason("");
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  const id = form.path.split("/").pop()!;
  return (
    <CardForm
      id={id}
      title={form.summary.split(":")[0]!}
      onSubmit={() => importModel.mutate()}
      error={importModel.error}
    >
      <SchemaForm schema={schema} values={values} onChange={setValues} idPrefix={id} />
      <ReasonField value={reason} onChange={setReason} />
      <button type="submit" disabled={importModel.isPending}>
        Import
      </button>
    </CardForm>
  );
}

export function ImportForms() {
  return (
    <>
      {IMPORT_FORMS.map((form) => (
        <ImportForm key={form.path} form={form} />
      ))}
    </>
  );
}
