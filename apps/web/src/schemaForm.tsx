import { useState, type DragEvent } from "react";
import type { JsonSchema } from "./api";

// A form from a model's input JSON Schema, for the shapes the catalogue uses: strings (text, or a
// select when they have an enum), integers and numbers with bounds, booleans, files (format: uri:
// chosen or dropped, uploaded at once, the field then holds the file's id). The API validates the
// input again with the full schema; this form only helps a person type it.

type Values = Record<string, string | boolean>;

export function initialValues(schema: JsonSchema): Values {
  const values: Values = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.type === "boolean") values[name] = prop.default === true;
    else values[name] = prop.default === undefined ? "" : String(prop.default);
  }
  return values;
}

/** The form's values as the run's input: empty optional fields left out, numbers as numbers. */
export function toInput(schema: JsonSchema, values: Values): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const value = values[name];
    if (prop.type === "boolean") input[name] = value === true;
    else if (value === "" || value === undefined) continue;
    else if (prop.type === "integer" || prop.type === "number") input[name] = Number(value);
    else input[name] = value;
  }
  return input;
}

const label = (name: string, prop: JsonSchema) =>
  prop.title ?? name.replaceAll("_", " ").replace(/^./, (c) => c.toUpperCase());

/** What an `accept` attribute says of a file field: its types, else its kinds of media. */
function acceptOf(prop: JsonSchema): string {
  if (prop["x-content-types"]?.length) return prop["x-content-types"].join(",");
  const media = prop["x-media"];
  const kinds = Array.isArray(media) ? media : media ? [media] : ["image", "video", "audio"];
  return kinds.map((k) => `${k}/*`).join(",");
}

/**
 * A file input: a file chosen or dropped is uploaded at once and the field holds its id; an id, an
 * https URL or a data URL may be typed instead.
 */
function FileField({
  id,
  name,
  prop,
  value,
  required,
  upload,
  onChange,
}: {
  id: string;
  name: string;
  prop: JsonSchema;
  value: string;
  required: boolean;
  upload(file: File): Promise<string>;
  onChange(value: string): void;
}) {
  const [state, setState] = useState<{ busy: boolean; error?: string; preview?: string; name?: string }>({
    busy: false,
  });
  const take = async (file: File | undefined) => {
    if (!file) return;
    setState({ busy: true, name: file.name });
    try {
      const fileId = await upload(file);
      const preview = file.type.startsWith("image/") ? URL.createObjectURL(file) : undefined;
      setState({ busy: false, name: file.name, preview });
      onChange(fileId);
    } catch (error) {
      setState({ busy: false, error: (error as Error).message });
    }
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    void take(event.dataTransfer.files[0]);
  };
  return (
    <div className="file-field" onDragOver={(e) => e.preventDefault()} onDrop={drop}>
      <input
        id={`${id}-file`}
        type="file"
        accept={acceptOf(prop)}
        aria-label={`Choose a file for ${name}`}
        onChange={(e) => void take(e.target.files?.[0])}
      />
      <span className="hint">or drop a file here, or give a file id or an https URL:</span>
      <input
        id={id}
        name={name}
        type="text"
        required={required}
        value={value}
        placeholder="file_… or https://…"
        onChange={(e) => onChange(e.target.value)}
      />
      {state.busy ? <span role="status">Uploading {state.name}…</span> : null}
      {state.error ? (
        <span className="error" role="alert">
          {state.error}
        </span>
      ) : null}
      {state.preview ? <img src={state.preview} alt={`Chosen ${name}`} className="file-preview" /> : null}
    </div>
  );
}

export function SchemaForm({
  schema,
  values,
  onChange,
  upload,
}: {
  schema: JsonSchema;
  values: Values;
  onChange(values: Values): void;
  /** Uploads a chosen file; the file's id. */
  upload(file: File): Promise<string>;
}) {
  const required = new Set(schema.required ?? []);
  const set = (name: string, value: string | boolean) => onChange({ ...values, [name]: value });
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, prop]) => {
        const id = `field-${name}`;
        const hint = prop.description ? (
          <span className="hint" id={`${id}-hint`}>
            {prop.description}
          </span>
        ) : null;
        const common = {
          id,
          name,
          required: required.has(name),
          "aria-describedby": prop.description ? `${id}-hint` : undefined,
        };
        let control;
        if (prop.type === "boolean") {
          return (
            <label key={name} className="inline">
              <input
                {...common}
                type="checkbox"
                checked={values[name] === true}
                onChange={(e) => set(name, e.target.checked)}
              />
              {label(name, prop)}
              {hint}
            </label>
          );
        } else if (prop.enum) {
          control = (
            <select
              {...common}
              value={String(values[name] ?? "")}
              onChange={(e) => set(name, e.target.value)}
            >
              {required.has(name) ? null : <option value="">(default)</option>}
              {prop.enum.map((option) => (
                <option key={String(option)} value={String(option)}>
                  {String(option)}
                </option>
              ))}
            </select>
          );
        } else if (prop.format === "uri") {
          control = (
            <FileField
              id={id}
              name={name}
              prop={prop}
              value={String(values[name] ?? "")}
              required={required.has(name)}
              upload={upload}
              onChange={(value) => set(name, value)}
            />
          );
        } else if (prop.type === "integer" || prop.type === "number") {
          control = (
            <input
              {...common}
              type="number"
              inputMode={prop.type === "integer" ? "numeric" : "decimal"}
              step={prop.type === "integer" ? 1 : "any"}
              min={prop.minimum}
              max={prop.maximum}
              value={String(values[name] ?? "")}
              onChange={(e) => set(name, e.target.value)}
            />
          );
        } else if ((prop.maxLength ?? 0) > 200 || name === "prompt") {
          control = (
            <textarea
              {...common}
              rows={3}
              minLength={prop.minLength}
              maxLength={prop.maxLength}
              value={String(values[name] ?? "")}
              onChange={(e) => set(name, e.target.value)}
            />
          );
        } else {
          control = (
            <input
              {...common}
              type="text"
              minLength={prop.minLength}
              maxLength={prop.maxLength}
              value={String(values[name] ?? "")}
              onChange={(e) => set(name, e.target.value)}
            />
          );
        }
        return (
          <div key={name} className="field">
            <label htmlFor={id}>
              {label(name, prop)}
              {required.has(name) ? <span aria-hidden="true"> *</span> : null}
            </label>
            {control}
            {hint}
          </div>
        );
      })}
    </>
  );
}
