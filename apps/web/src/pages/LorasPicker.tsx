// A model's LoRAs in the playground: up to its `loras` field's count, each one of your weights (in
// this mode) at a strength within the field's range; upload more on the Weights page.
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { call, scoped, type JsonSchema, type Weights } from "../api";
import { useConsole } from "../session";

export interface PickedLora {
  weights: string;
  scale: number;
}

export function LorasPicker({
  field,
  value,
  onChange,
}: {
  field: JsonSchema & { maxItems?: number; items?: JsonSchema };
  value: PickedLora[];
  onChange(value: PickedLora[]): void;
}) {
  const { mode } = useConsole();
  const weights = useQuery({
    queryKey: ["scoped", mode, "weights"],
    queryFn: () => call<{ weights: Weights[] }>(scoped(mode, "/weights?limit=100")),
  });
  const scale = field.items?.properties?.scale ?? {};
  const max = field.maxItems ?? 1;
  const mine = weights.data?.weights ?? [];
  const set = (i: number, lora: PickedLora) => onChange(value.map((l, j) => (j === i ? lora : l)));
  return (
    <fieldset>
      <legend>LoRAs</legend>
      {value.map((lora, i) => (
        <div key={i} className="inline">
          <label>
            LoRA {i + 1}
            <select value={lora.weights} onChange={(e) => set(i, { ...lora, weights: e.target.value })}>
              {mine.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name} ({w.id})
                </option>
              ))}
            </select>
          </label>
          <label>
            Strength {i + 1}
            <input
              type="number"
              step="any"
              min={scale.minimum}
              max={scale.maximum}
              value={lora.scale}
              onChange={(e) => set(i, { ...lora, scale: Number(e.target.value) })}
            />
          </label>
          <button type="button" className="link" onClick={() => onChange(value.filter((_, j) => j !== i))}>
            Remove<span className="visually-hidden"> LoRA {i + 1}</span>
          </button>
        </div>
      ))}
      {value.length < max && mine.length ? (
        <button
          type="button"
          className="secondary"
          onClick={() =>
            onChange([
              ...value,
              { weights: mine[0]!.id, scale: typeof scale.default === "number" ? scale.default : 1 },
            ])
          }
        >
          Add a LoRA
        </button>
      ) : null}
      <span className="hint">
        {mine.length ? `Up to ${max}. ` : "You have no weights in this mode yet. "}
        <Link to="/weights">Upload weights</Link>.
      </span>
    </fieldset>
  );
}
