// Importing a Cog model: the server reads its schema from the running server and lists it.
import { CountInput } from "../../ui";
import { ImportForm } from "./ImportForm";

const empty = { cog_url: "", id: "", tokens_per_unit: "1", replace: false, reason: "" };

export function ImportCogModel() {
  return (
    <ImportForm
      id="import"
      title="Import a Cog model"
      path="/operator/models/import"
      empty={empty}
      body={(f) => ({ cog_url: f.cog_url, id: f.id, tokens_per_unit: Number(f.tokens_per_unit) })}
    >
      {(cog, setCog) => (
        <>
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
            <CountInput
              value={cog.tokens_per_unit}
              onChange={(v) => setCog({ ...cog, tokens_per_unit: v })}
            />
          </label>
        </>
      )}
    </ImportForm>
  );
}
