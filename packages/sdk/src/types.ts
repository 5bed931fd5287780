// The API's shapes, taken from the types generated from its OpenAPI document
// (./generated/openapi.ts, `pnpm sdk:types`): named here for the SDK's users, written nowhere else.
import type { components, paths, webhooks } from "./generated/openapi.js";

/** The generated shapes themselves, for clients of operations the names below do not cover. */
export type { components as ApiComponents, paths as ApiPaths } from "./generated/openapi.js";

type Schemas = components["schemas"];
/** The `data` of an operation's JSON answer with the given status. */
export type DataOf<
  P extends keyof paths,
  M extends "get" | "post" | "patch" | "delete",
  S extends number = 200,
> = paths[P][M] extends {
  responses: { [K in S]: { content: { "application/json": { data: infer D } } } };
}
  ? D
  : never;
/** An operation's query parameters. */
type QueryOf<P extends keyof paths, M extends "get"> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

export type Model = Schemas["Model"];
export type ModelDetail = Schemas["ModelDetail"];
export type ModelCategory = Model["category"];
export type ModelList = DataOf<"/api/v1/models", "get">;
export type ModelListQuery = QueryOf<"/api/v1/models", "get">;

export type Run = Schemas["Run"];
export type RunStatus = Run["status"];
type KeysOf<T> = T extends unknown ? keyof T : never;
type FieldOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
/**
 * A run with every field that some status has, each optional: for code that reads runs without
 * narrowing by `status` first (a table of runs). Narrowing a `Run` by status is the typed way.
 */
export type AnyRun = Pick<Run, "run_id" | "status"> & { [K in KeysOf<Run>]?: FieldOf<Run, K> };
/** A run that has completed: its output and charge are there. */
export type CompletedRun = Extract<Run, { status: "COMPLETED" }>;
export type CreatedRun = Schemas["RunCreated"]["data"];
/** The body of a run creation: input, and optionally webhook_url and webhook_events_filter. */
export type CreateRunBody =
  paths["/api/v1/models/{modelId}/run"]["post"]["requestBody"]["content"]["application/json"];
/** What a run's own webhook_url receives (webhook_events_filter). */
export type WebhookFilter = NonNullable<CreateRunBody["webhook_events_filter"]>[number];
export type RunList = DataOf<"/api/v1/runs", "get">;
export type RunListQuery = QueryOf<"/api/v1/runs", "get">;
/** What a runner reports while executing (the event stream's progress events). */
export type RunProgress = Schemas["RunProgress"];
/** An event of a run's stream: a status with the run's view, or progress. */
export type RunEvent =
  { type: "status"; id?: string; run: Run } | { type: "progress"; id?: string; progress: RunProgress };

/** An uploaded file (POST /files), to give as a run's input by its id. */
export type FileObject = Schemas["File"];
export type FileList = DataOf<"/api/v1/files", "get">;
export type FileListQuery = QueryOf<"/api/v1/files", "get">;
export type Batch = Schemas["Batch"];
export type BatchList = DataOf<"/api/v1/batches", "get">;
export type BatchListQuery = QueryOf<"/api/v1/batches", "get">;
export type CreateBatchBody = paths["/api/v1/batches"]["post"]["requestBody"]["content"]["application/json"];
/** A line of a batch's results (application/jsonl). */
export type BatchResultLine = Schemas["BatchResultLine"];
export type Weights = Schemas["Weights"];
export type WeightsList = DataOf<"/api/v1/weights", "get">;
export type WeightsListQuery = QueryOf<"/api/v1/weights", "get">;

export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type EventType = WebhookEndpoint["events"][number];
export type CreatedWebhook = DataOf<"/api/v1/webhooks", "post", 201>;
export type Delivery = Schemas["Delivery"];
/** A webhook delivery's body, by event (per-run or registered endpoint). */
export type WebhookEvent = {
  [E in keyof webhooks]: NonNullable<webhooks[E]["post"]>["requestBody"] extends
    { content: { "application/json": infer B } } | undefined
    ? B
    : never;
}[keyof webhooks];

export type DeliveryListQuery = QueryOf<"/api/v1/webhooks/{webhookId}/deliveries", "get">;

export type Account = Schemas["Account"];
export type LedgerEntry = Schemas["LedgerEntry"];
export type LedgerQuery = QueryOf<"/api/v1/account/ledger", "get">;
export type Usage = DataOf<"/api/v1/account/usage", "get">;
export type UsageQuery = QueryOf<"/api/v1/account/usage", "get">;
