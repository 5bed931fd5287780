// Importing a ComfyUI workflow as a model: its API-format JSON and the bindings of the model's
// input fields to its nodes; the server checks both against each other.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call } from "../../api";
import { CardForm, CountInput, ReasonField } from "../../ui";

const empty = {
  server_url: "",
  workflow: "",
  bindings: "",
  id: "",
  tokens_per_unit: "1",
  replace: false,
  reason: "",
};

/** The JSON typed in a field, or an error naming the field. */
function parsed(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON.`);
  }
}

export function ImportComfyModel() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState(empty);
  const importModel = useMutation({
    mutationFn: async () =>
      call("/operator/models/import-comfyui", {
        method: "POST",
        body: {
          server_url: form.server_url,
          workflow: parsed(form.workflow, "The workflow"),
          bindings: parsed(form.bindings, "The bindings"),
          id: form.id,
          tokens_per_unit: Number(form.tokens_per_unit),
          replace: form.replace,
          reason: form.reason,
        },
      }),
    onSuccess: () => {
      setForm(empty);
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  return (
    <CardForm
      id="import-comfyui"
      title="Import a ComfyUI workflow"
      onSubmit={() => importModel.mutate()}
      error={importModel.error}
    >
      <label>
        ComfyUI server URL
        <input
          type="url"
          required
          value={form.server_url}
          onChange={(e) => setForm({ ...form, server_url: e.target.value })}
          placeholder="http://gpu-2:8188"
        />
      </label>
      <label>
        Model id
        <input
          required
          value={form.id}
          onChange={(e) => setForm({ ...form, id: e.target.value })}
          placeholder="you/sd15-comfy"
        />
      </label>
      <label>
        Tokens per image
        <CountInput value={form.tokens_per_unit} onChange={(v) => setForm({ ...form, tokens_per_unit: v })} />
      </label>
      <label>
        Workflow (API format JSON)
        <textarea
          required
          rows={6}
          value={form.workflow}
          onChange={(e) => setForm({ ...form, workflow: e.target.value })}
          placeholder='{"6": {"class_type": "CLIPTextEncode", "inputs": {"text": "…", "clip": ["4", 1]}}, …}'
        />
      </label>
      <label>
        Bindings (JSON)
        <textarea
          required
          rows={4}
          value={form.bindings}
          onChange={(e) => setForm({ ...form, bindings: e.target.value })}
          placeholder='[{"field": "prompt", "node": "6", "input": "text"}]'
        />
      </label>
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
