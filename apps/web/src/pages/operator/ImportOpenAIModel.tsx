// Importing a model from OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI): the server must
// list the model; its key is sent once and stored sealed, never shown again.
import { CountInput } from "../../ui";
import { ImportForm } from "./ImportForm";

const APIS = {
  images: "Images (/v1/images)",
  videos: "Videos (/v1/videos)",
  speech: "Speech (/v1/audio/speech)",
};
const UNIT = { images: "image", videos: "second of video", speech: "speech" };
const empty = {
  server_url: "",
  model: "",
  api: "images" as keyof typeof APIS,
  api_key: "",
  id: "",
  tokens_per_unit: "1",
  replace: false,
  reason: "",
};

export function ImportOpenAIModel() {
  return (
    <ImportForm
      id="import-openai"
      title="Import a model from an OpenAI-style server"
      path="/operator/models/import-openai"
      empty={empty}
      body={(f) => ({
        server_url: f.server_url,
        model: f.model,
        api: f.api,
        ...(f.api_key && { api_key: f.api_key }),
        id: f.id,
        tokens_per_unit: Number(f.tokens_per_unit),
      })}
    >
      {(form, setForm) => (
        <>
          <label>
            Server URL
            <input
              type="url"
              required
              value={form.server_url}
              onChange={(e) => setForm({ ...form, server_url: e.target.value })}
              placeholder="http://gpu-1:8091"
            />
          </label>
          <label>
            Its model name
            <input
              required
              value={form.model}
              onChange={(e) => setForm({ ...form, model: e.target.value })}
              placeholder="Qwen/Qwen-Image"
            />
          </label>
          <label>
            API
            <select
              value={form.api}
              onChange={(e) => setForm({ ...form, api: e.target.value as keyof typeof APIS })}
            >
              {Object.entries(APIS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            API key (stored sealed, never shown again)
            <input
              type="password"
              autoComplete="off"
              value={form.api_key}
              onChange={(e) => setForm({ ...form, api_key: e.target.value })}
            />
          </label>
          <label>
            Model id
            <input
              required
              value={form.id}
              onChange={(e) => setForm({ ...form, id: e.target.value })}
              placeholder="you/qwen-image"
            />
          </label>
          <label>
            Tokens per {UNIT[form.api]}
            <CountInput
              value={form.tokens_per_unit}
              onChange={(v) => setForm({ ...form, tokens_per_unit: v })}
            />
          </label>
        </>
      )}
    </ImportForm>
  );
}
