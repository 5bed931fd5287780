// The console's one way to the server: same-origin fetch with the session cookie, the CSRF token on
// every state-changing request, and the contract's error body turned into an ApiFailure.

export type Mode = "live" | "test";

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

let csrfToken = "";
export function setCsrfToken(token: string) {
  csrfToken = token;
}

interface Options {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  body?: unknown;
  /** A file sent as the body, as it is (an upload). */
  file?: Blob;
  headers?: Record<string, string>;
}

export async function call<T>(
  path: string,
  { method = "GET", body, file, headers = {} }: Options = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/console/api${path}`, {
      method,
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        ...(body !== undefined && { "Content-Type": "application/json" }),
        ...(file !== undefined && { "Content-Type": file.type || "application/octet-stream" }),
        ...(method !== "GET" && { "X-CSRF-Token": csrfToken }),
        ...headers,
      },
      body: file ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
  } catch {
    throw new ApiFailure(
      0,
      "NETWORK",
      "The service could not be reached. Check your connection and try again.",
    );
  }
  const text = await response.text();
  let json: { data?: T; error?: { code: string; message: string; details?: ErrorDetail[] } } = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // reported below
  }
  if (!response.ok || json.data === undefined) {
    const error = json.error;
    throw new ApiFailure(
      response.status,
      error?.code ?? "UNEXPECTED",
      error?.message ?? `The service answered ${response.status}. Try again in a moment.`,
      error?.details,
    );
  }
  return json.data;
}

/** A path of the public API's operations, as the console reaches them for one mode. */
export const scoped = (mode: Mode, path: string) => `/${mode}${path}`;

export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

// Shapes of the API's answers: the SDK's types (one description of the API), plus the console's own.
export type {
  Account,
  Batch,
  Delivery,
  FileObject,
  LedgerEntry,
  Model,
  RunStatus,
  Run as RunSummary,
  Usage,
  WebhookEndpoint as Endpoint,
  Weights,
} from "@svc/sdk";
import type { ApiComponents, DataOf, FileObject, ModelDetail as SdkModelDetail, Weights } from "@svc/sdk";

export type Session = DataOf<"/console/api/session", "get">;
export type ApiKey = ApiComponents["schemas"]["ApiKey"];
export type ListedApiKey = ApiComponents["schemas"]["ListedApiKey"];
export type OperatorAccount = ApiComponents["schemas"]["OperatorAccount"];
export type OperatorModel = ApiComponents["schemas"]["OperatorModel"];
export type Person = ApiComponents["schemas"]["Person"];
export type AuditEntry = ApiComponents["schemas"]["AuditEntry"];
export type OperatorAccountDetail = DataOf<"/console/api/operator/accounts/{accountId}", "get">;
export type RunDetail = DataOf<"/console/api/{mode}/runs/{runId}/detail", "get">;

/** The subset of JSON Schema the playground's form renders. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** "uri" on a file input (an upload, a URL or a data URL). */
  format?: string;
  /** A secret (shown as a password field). */
  writeOnly?: boolean;
  examples?: unknown[];
  "x-media"?: string | string[];
  "x-content-types"?: string[];
}

/** A model with its input schema read as the form's subset. */
export type ModelDetail = Omit<SdkModelDetail, "input_schema"> & { input_schema: JsonSchema };

/** Uploads a file for the mode's runs: its id, to give as a file input. */
/**
 * Weights uploaded as a form (its `file` and `name`), with the upload's progress reported as it
 * goes (fetch cannot tell it; XMLHttpRequest can). Answers the weights, or throws as call() does.
 */
export function uploadWeights(
  mode: Mode,
  file: File,
  name: string,
  onProgress: (fraction: number) => void,
): Promise<Weights> {
  const form = new FormData();
  if (name) form.set("name", name);
  form.set("file", file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/console/api${scoped(mode, "/weights")}`);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("X-CSRF-Token", csrfToken);
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onerror = () => reject(new ApiFailure(0, "NETWORK", "The upload could not reach the service."));
    xhr.onload = () => {
      let json: { data?: Weights; error?: { code: string; message: string; details?: ErrorDetail[] } } = {};
      try {
        json = JSON.parse(xhr.responseText);
      } catch {
        // reported below
      }
      if (xhr.status < 300 && json.data) return resolve(json.data);
      reject(
        new ApiFailure(
          xhr.status,
          json.error?.code ?? "UNEXPECTED",
          json.error?.message ?? `The service answered ${xhr.status}.`,
          json.error?.details,
        ),
      );
    };
    xhr.send(form);
  });
}

export const uploadFile = (mode: Mode, file: Blob) =>
  call<FileObject>(scoped(mode, "/files"), { method: "POST", file });
