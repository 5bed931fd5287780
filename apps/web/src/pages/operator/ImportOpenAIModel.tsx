// Importing a model from OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI): the server must
// list the model; its key is sent once and stored sealed, never shown again.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call } from "../../api";
import { CardForm, CountInput, ReasonField } from "../../ui";

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
  const queryClient = useQueryClient();
  const [form, setForm] = useState(empty);
  const importModel = useMutation({
    mutationFn: () =>
      call("/operator/models/import-openai", {
        method: "POST",
        body: {
          server_url: form.server_url,
          model: form.model,
          api: form.api,
          ...(form.api_key && { api_key: form.api_key }),
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
      id="import-openai"
      title="Import a model from an OpenAI-style server"
      onSubmit={() => importModel.mutate()}
      error={importModel.error}
    >
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
        <CountInput value={form.tokens_per_unit} onChange={(v) => setForm({ ...form, tokens_per_unit: v })} />
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
