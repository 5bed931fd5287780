// Importing a Cog model: the server reads its schema from the running server and lists it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call } from "../../api";
import { CardForm, CountInput, ReasonField } from "../../ui";

const noImport = { cog_url: "", id: "", tokens_per_unit: "1", replace: false, reason: "" };

export function ImportCogModel() {
  const queryClient = useQueryClient();
  const [cog, setCog] = useState(noImport);
  const importModel = useMutation({
    mutationFn: () =>
      call("/operator/models/import", {
        method: "POST",
        body: { ...cog, tokens_per_unit: Number(cog.tokens_per_unit) },
      }),
    onSuccess: () => {
      setCog(noImport);
      void queryClient.invalidateQueries({ queryKey: ["operator"] });
    },
  });
  return (
    <CardForm
      id="import"
      title="Import a Cog model"
      onSubmit={() => importModel.mutate()}
      error={importModel.error}
    >
      <label>
        Cog server URL
        <input
          type="url"
          required
          value={cog.cog_url}
          onChange={(e) => setCog({ ...cog, cog_url: e.target.value })}
          placeholder="http://gpu-0:5000"
        />
      </label>
      <label>
        Model id
        <input
          required
          value={cog.id}
          onChange={(e) => setCog({ ...cog, id: e.target.value })}
          placeholder="you/sdxl"
        />
      </label>
      <label>
        Tokens per image
        <CountInput value={cog.tokens_per_unit} onChange={(v) => setCog({ ...cog, tokens_per_unit: v })} />
      </label>
      <ReasonField value={cog.reason} onChange={(reason) => setCog({ ...cog, reason })} />
      <label className="inline">
        <input
          type="checkbox"
          checked={cog.replace}
          onChange={(e) => setCog({ ...cog, replace: e.target.checked })}
        />
        Replace a model with this id
      </label>
      <button type="submit" disabled={importModel.isPending}>
        Import
      </button>
    </CardForm>
  );
}
