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
  headers?: Record<string, string>;
}

export async function call<T>(
  path: string,
  { method = "GET", body, headers = {} }: Options = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/console/api${path}`, {
      method,
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        ...(body !== undefined && { "Content-Type": "application/json" }),
        ...(method !== "GET" && { "X-CSRF-Token": csrfToken }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
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

// Shapes of the API's answers the console reads.
export interface Session {
  user: { id: string; email: string; role: "owner" | "member" };
  account: { id: string; name: string };
  csrf_token: string;
  expires_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  mode: Mode;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export type RunStatus = "QUEUED" | "EXECUTING" | "COMPLETED" | "FAILED" | "CANCELED";
export const ACTIVE: RunStatus[] = ["QUEUED", "EXECUTING"];

export interface RunSummary {
  run_id: string;
  status: RunStatus;
  model_id?: string;
  created_at?: string;
  completed_at?: string;
  canceled_at?: string;
  tokens_charged?: number;
  error?: { code: string; message: string };
}

export interface RunDetail {
  run_id: string;
  status: RunStatus;
  model_id: string;
  mode: Mode;
  input: Record<string, unknown>;
  output: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  estimated_tokens: number;
  tokens_charged: number | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  canceled_at: string | null;
}

export interface Model {
  id: string;
  name: string;
  description: string;
  category: "image" | "video" | "audio";
  outputs_image: boolean;
  outputs_video: boolean;
  outputs_audio: boolean;
  estimated_tokens: number;
  status: string;
  highlighted: boolean;
}

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
}

export interface ModelDetail extends Model {
  input_schema: JsonSchema;
  pricing: { unit: string; tokens_per_unit: number; units_from: string | null; description: string };
}

export interface Account {
  id: string;
  name: string;
  balance: number;
  reserved: number;
  available: number;
  mode: Mode;
}

export interface LedgerEntry {
  id: string;
  kind: "GRANT" | "RESERVE" | "CHARGE" | "RELEASE";
  amount: number;
  balance_delta: number;
  reserved_delta: number;
  run_id: string | null;
  note: string;
  created_at: string;
}

export interface Usage {
  days: { date: string; tokens_charged: number; runs_charged: number }[];
  total_tokens_charged: number;
}

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  status: "active" | "disabled";
  consecutive_failures: number;
  created_at: string;
  disabled_at: string | null;
}

export interface Delivery {
  id: string;
  event: string;
  run_id: string | null;
  status: "pending" | "succeeded" | "failed";
  created_at: string;
  completed_at: string | null;
  attempts: {
    number: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error_class: string | null;
    success: boolean;
  }[];
}
