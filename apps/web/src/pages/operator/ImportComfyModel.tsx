// Importing a ComfyUI workflow as a model: its API-format JSON and the bindings of the model's
// input fields to its nodes; the server checks both against each other.
import { CountInput } from "../../ui";
import { ImportForm } from "./ImportForm";

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
  return (
    <ImportForm
      id="import-comfyui"
      title="Import a ComfyUI workflow"
      path="/operator/models/import-comfyui"
      empty={empty}
      body={(f) => ({
        server_url: f.server_url,
        workflow: parsed(f.workflow, "The workflow"),
        bindings: parsed(f.bindings, "The bindings"),
        id: f.id,
        tokens_per_unit: Number(f.tokens_per_unit),
      })}
    >
      {(form, setForm) => (
        <>
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
            <CountInput
              value={form.tokens_per_unit}
              onChange={(v) => setForm({ ...form, tokens_per_unit: v })}
            />
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
        </>
      )}
    </ImportForm>
  );
}
