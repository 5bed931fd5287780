import { useState, type DragEvent } from "react";
import type { JsonSchema } from "./api";

// A form from a JSON Schema, for the shapes the catalogue and the operator's imports use: strings
// (text, or a select when they have an enum; a password when write-only), integers and numbers with
// bounds, booleans, objects and arrays as JSON, files (format: uri: chosen or dropped, uploaded at
// once, the field then holds the file's id; a URL field where the form takes no uploads). The API
// validates the input again with the full schema; this form only helps a person type it.

type Values = Record<string, string | boolean>;

export function initialValues(schema: JsonSchema): Values {
  const values: Values = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.type === "boolean") values[name] = prop.default === true;
    else if (prop.default === undefined || isJson(prop)) values[name] = "";
    else values[name] = String(prop.default);
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
    else if (isJson(prop)) input[name] = parseJson(name, String(value));
    else input[name] = value;
  }
  return input;
}

/** Objects and arrays are typed as JSON. */
const isJson = (prop: JsonSchema) => prop.type === "object" || prop.type === "array";

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${label(name, {})}: expected JSON`);
  }
}

const ACRONYMS = new Set(["url", "api", "id"]);

const label = (name: string, prop: JsonSchema) =>
  prop.title ??
  name
    .split("_")
    .map((word, i) =>
      ACRONYMS.has(word) ? word.toUpperCase() : i === 0 ? word.replace(/^./, (c) => c.toUpperCase()) : word,
    )
    .join(" ");

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

interface ControlProps {
  id: string;
  name: string;
  prop: JsonSchema;
  value: string | boolean | undefined;
  required: boolean;
  upload?: (file: File) => Promise<string>;
  set(value: string | boolean): void;
}

/** The input a field's schema calls for (every kind but a checkbox, which SchemaForm lays out itself). */
function Control({ id, name, prop, value, required, upload, set }: ControlProps) {
  const common = {
    id,
    name,
    required,
    "aria-describedby": prop.description ? `${id}-hint` : undefined,
    value: String(value ?? ""),
  };
  const placeholder = Array.isArray(prop.examples) ? String(prop.examples[0]) : undefined;
  if (prop.enum)
    return (
      <select {...common} onChange={(e) => set(e.target.value)}>
        {required ? null : <option value="">(default)</option>}
        {prop.enum.map((option) => (
          <option key={String(option)} value={String(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  if (prop.format === "uri" && upload)
    return (
      <FileField
        id={id}
        name={name}
        prop={prop}
        value={common.value}
        required={required}
        upload={upload}
        onChange={set}
      />
    );
  if (prop.type === "integer" || prop.type === "number")
    return (
      <input
        {...common}
        type="number"
        inputMode={prop.type === "integer" ? "numeric" : "decimal"}
        step={prop.type === "integer" ? 1 : "any"}
        min={prop.minimum}
        max={prop.maximum}
        onChange={(e) => set(e.target.value)}
      />
    );
  const text = !prop.format && !prop.writeOnly && ((prop.maxLength ?? 0) > 500 || name === "prompt");
  if (isJson(prop) || text)
    return (
      <textarea
        {...common}
        rows={isJson(prop) ? 6 : 3}
        minLength={prop.minLength}
        maxLength={prop.maxLength}
        placeholder={isJson(prop) ? "JSON" : placeholder}
        onChange={(e) => set(e.target.value)}
      />
    );
  return (
    <input
      {...common}
      type={prop.writeOnly ? "password" : prop.format === "uri" ? "url" : "text"}
      autoComplete={prop.writeOnly ? "off" : undefined}
      minLength={prop.minLength}
      maxLength={prop.maxLength}
      placeholder={placeholder}
      onChange={(e) => set(e.target.value)}
    />
  );
}

export function SchemaForm({
  schema,
  values,
  onChange,
  upload,
  idPrefix = "field",
}: {
  schema: JsonSchema;
  values: Values;
  onChange(values: Values): void;
  /** Its fields' ids are `<idPrefix>-<name>` (several forms on one page need their own). */
  idPrefix?: string;
  /** Uploads a chosen file; the file's id. Without it, a file field takes a URL. */
  upload?(file: File): Promise<string>;
}) {
  const required = new Set(schema.required ?? []);
  const set = (name: string) => (value: string | boolean) => onChange({ ...values, [name]: value });
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, prop]) => {
        const id = `${idPrefix}-${name}`;
        const hint = prop.description ? (
          <span className="hint" id={`${id}-hint`}>
            {prop.description}
          </span>
        ) : null;
        if (prop.type === "boolean")
          return (
            <label key={name} className="inline">
              <input
                id={id}
                name={name}
                type="checkbox"
                aria-describedby={prop.description ? `${id}-hint` : undefined}
                checked={values[name] === true}
                onChange={(e) => set(name)(e.target.checked)}
              />
              {label(name, prop)}
              {hint}
            </label>
          );
        return (
          <div key={name} className="field">
            <label htmlFor={id}>
              {label(name, prop)}
              {required.has(name) ? <span aria-hidden="true"> *</span> : null}
            </label>
            <Control
              id={id}
              name={name}
              prop={prop}
              value={values[name]}
              required={required.has(name)}
              upload={upload}
              set={set(name)}
            />
            {hint}
          </div>
        );
      })}
    </>
  );
}
