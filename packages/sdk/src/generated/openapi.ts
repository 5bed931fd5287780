// Generated from the API's OpenAPI document by `pnpm sdk:types`: do not edit.
// apps/api/src/openapi/sdkTypes.test.ts fails when it differs from what the routes generate.
/* eslint-disable */
export type paths = {
    "/api/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List active models */
        get: {
            parameters: {
                query?: {
                    category?: "image" | "video" | "audio";
                    output_type?: "image" | "video" | "audio";
                    highlighted?: boolean;
                    limit?: number;
                    offset?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of active models, ordered by id */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                models: components["schemas"]["Model"][];
                                total: number;
                                limit: number;
                                offset: number;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/models/{modelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one model with its input schema and pricing
         * @description Also its queue now: runs waiting (queue_length), runs it can execute at once (capacity: its healthy model servers x their concurrency, or the workers' render threads) and runs executing (in_flight), and the median run time of its recent runs.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Model id; it may contain slashes (vendor/model or vendor/family/variant) */
                    modelId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The model */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ModelDetail"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/models/{modelId}/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a run
         * @description Validates input against the model's input schema (defaults applied), reserves estimated_tokens for live keys and queues the run. With an Idempotency-Key, the same key and body within 24 h return the original run. With `Prefer: wait` (or `wait=N`, 1 to 60 s; 60 by default) the answer waits until the run has ended or the time is up: an ended run answers with its terminal fields (status COMPLETED, FAILED or CANCELED), otherwise the answer is the usual `queued` one, and clients poll or stream. `Cancel-After` (`30s`, `5m`, `1h30m`, or seconds; 1 s to 24 h) cancels and refunds the run if it has not ended by then; its view then carries `error.code` CANCEL_AFTER. `webhook_events_filter` chooses what the run's own webhook_url receives (default completed and failed). Test keys run for free, but an account may start at most TEST_RUNS_PER_DAY test runs of compute-costing models (all but acme/echo) per 24 hours across its test keys: past it, 429 TEST_RUN_QUOTA_EXCEEDED with Retry-After (GET /account shows what is left). A run of a model with limited capacity (model servers, render threads) stays QUEUED until a place is free: accounts waiting for the same model take turns (in proportion to their weight), each account's own runs start oldest first, `priority: low` ones only when the account has no normal run waiting, and at most max_concurrent_runs of an account's runs execute at once (GET /account). A model with a queue cap answers 429 MODEL_QUEUE_FULL with Retry-After once that many runs wait.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Replays the run made with the same key and body within 24 hours */
                    "idempotency-key"?: string;
                    /** @description wait, or wait=N (1 to 60 s): answer once the run has ended or N seconds have passed */
                    prefer?: string;
                    /** @description Cancel (and refund) the run if it has not ended this long after creation: 30s, 5m, 1h30m */
                    "cancel-after"?: string;
                };
                path: {
                    /** @description Model id; it may contain slashes (vendor/model or vendor/family/variant) */
                    modelId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "input": {
                     *         "prompt": "a lighthouse at dawn",
                     *         "image_size": "landscape_16_9",
                     *         "num_images": 2
                     *       },
                     *       "webhook_url": "https://example.com/hooks/runs"
                     *     }
                     */
                    "application/json": {
                        input: {
                            [key: string]: unknown;
                        };
                        /** Format: uri */
                        webhook_url?: string;
                        webhook_events_filter?: ("started" | "completed" | "failed" | "canceled")[];
                        /**
                         * @description Lane among the account's own runs waiting for a busy model: low runs start only when the account has no normal run waiting
                         * @default normal
                         * @enum {string}
                         */
                        priority?: "normal" | "low";
                    };
                };
            };
            responses: {
                /** @description The run, queued (or ended, with Prefer: wait), or the original run for a repeated Idempotency-Key */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        /** @description Sent when Prefer: wait was honoured: the seconds waited at most */
                        "Preference-Applied"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["RunCreated"];
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough available tokens (INSUFFICIENT_TOKENS), or the API key's spend budget for its period is used up (KEY_BUDGET_EXCEEDED); nothing was created */
                402: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List runs, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                    model_id?: string;
                    status?: "QUEUED" | "EXECUTING" | "COMPLETED" | "FAILED" | "CANCELED";
                    /** @description The runs of one batch (its items) */
                    batch_id?: string;
                    created_after?: string;
                    created_before?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of runs and the cursor of the next */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                runs: components["schemas"]["Run"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a run's status and result
         * @description A queued run also shows its queue_position and estimated_start_at. With `Prefer: wait` (or `wait=N`, 1 to 60 s) the answer waits until the run has ended or the time is up (a long poll).
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description wait, or wait=N (1 to 60 s): answer once the run has ended or N seconds have passed */
                    prefer?: string;
                };
                path: {
                    runId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The run, with the fields of its status */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        /** @description Sent when Prefer: wait was honoured: the seconds waited at most */
                        "Preference-Applied"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Run"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{runId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a run's events (Server-Sent Events)
         * @description A `text/event-stream` of the run's events, ending after the terminal one:
         *     - `status`: each transition; data is the run's view as GET /runs/{runId} shows it (QUEUED with queue_position and estimated_start_at, EXECUTING, then the terminal view with output, tokens and error). A queued run's status is sent again when its position changes.
         *     - `progress`: what the runner reports while executing (see RunProgress): units done and asked for, the output so far, the model's logs.
         *     - a comment line (`: heartbeat`) every EVENTS_HEARTBEAT_MS.
         *     Events carry ids: reconnect with `Last-Event-ID` to receive only what came after (EventSource does it by itself). An ended run's events are kept RUN_EVENTS_RETENTION_SECONDS; later its stream gives the terminal status alone.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The id of the last event received */
                    "last-event-id"?: string;
                };
                path: {
                    runId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The event stream */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{runId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a queued or executing run */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    runId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Canceled (also for a run already canceled) */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example run_4ReEbWIXuDXbjwlguHgMmo */
                                run_id: string;
                                /** @enum {string} */
                                status: "CANCELED";
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                canceled_at: string;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List files, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of the caller's files (of the key's mode) */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                files: components["schemas"]["File"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Upload a file (an image, a video or an audio file) to give as a run's input
         * @description The body is the file (any Content-Type: the type is decided by the file's bytes), or a multipart/form-data form whose first file part (`content`, as Replicate's clients send it) is the file. Taken: image/png, image/jpeg, image/webp, image/gif, video/mp4, video/webm, audio/wav, audio/mpeg, audio/ogg, audio/flac; anything else is 415. Larger than FILE_MAX_BYTES: 413, before the body is read. Images are refused past FILE_MAX_PIXELS (read from the header, never decoded). A file is visible to its account, in the key's mode only, until expires_at (FILE_RETENTION_HOURS).
         */
        post: {
            parameters: {
                query?: {
                    /** @description batch: the file is a batch's JSON Lines (POST /batches input_file_id), stored as it is */
                    purpose?: "batch";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/octet-stream": string;
                    "multipart/form-data": {
                        /** Format: binary */
                        content: string;
                    };
                };
            };
            responses: {
                /** @description The stored file */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["File"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files/{fileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file's metadata */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    fileId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The file */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["File"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a file (runs already made with it fail with INPUT_FILE_UNAVAILABLE if not yet started) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    fileId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: string;
                                /** @enum {boolean} */
                                deleted: true;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files/{fileId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file's bytes */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    fileId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The file, with its Content-Type */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "*/*": string;
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/weights": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List weights (yours and the published ones), newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of the caller's weights (of the key's mode) and the operator's published ones */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                weights: components["schemas"]["Weights"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Add weights (a LoRA's .safetensors): uploaded, or fetched from an https URL
         * @description A multipart form whose `file` part is the file (and an optional `name`), or JSON `{ url, name }`. Only safetensors is taken: its header is read and checked (tensor names, dtypes, shapes, byte ranges inside the file) before anything is kept; a pickle (.ckpt, .pt, .bin), which runs code when loaded, or any other file is 415. Larger than WEIGHTS_MAX_BYTES: 413, before the body is read. An account holds at most WEIGHTS_PER_ACCOUNT weights per mode (409 WEIGHTS_LIMIT_REACHED). Weights are visible to their account in the key's mode, and kept until deleted.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "url": "https://example.com/loras/brand-style.safetensors",
                     *       "name": "brand-style"
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Fetch the file from here instead of uploading it (the same address rules as file inputs)
                         */
                        url?: string;
                        /** @description Default: the uploaded file's name */
                        name?: string;
                        /**
                         * Format: binary
                         * @description The .safetensors file (a multipart form's file part)
                         */
                        file?: string;
                    };
                    "multipart/form-data": {
                        /**
                         * Format: uri
                         * @description Fetch the file from here instead of uploading it (the same address rules as file inputs)
                         */
                        url?: string;
                        /** @description Default: the uploaded file's name */
                        name?: string;
                        /**
                         * Format: binary
                         * @description The .safetensors file (a multipart form's file part)
                         */
                        file?: string;
                    };
                };
            };
            responses: {
                /** @description The weights, as their header describes them */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Weights"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/weights/{weightsId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Weights, as their header describes them */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    weightsId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The weights */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Weights"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete weights (their stored bytes go with them) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    weightsId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: string;
                                /** @enum {boolean} */
                                deleted: true;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/batches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List batches, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of the caller's batches (of the key's mode) */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                batches: components["schemas"]["Batch"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a batch: many runs of one model, results as JSONL
         * @description The items in JSON (`items`), or a JSON Lines body (Content-Type application/jsonl, one item a line, the model and webhook_url in the query), read as a stream. Each line is checked as a run's input is; a bad line is an error line of the batch's results (naming the line and the field), never a refused batch. At most 50000 lines. Items run in the batch lane (a place goes to one only while no interactive run waits for it, and at most BATCH_MAX_SHARE_PERCENT of a model's places hold them), at the model's price less the batch discount (BATCH_DISCOUNT_PERCENT, or the model's pricing.batch_discount_percent), reserved item by item; the batch's window is 24 hours.
         */
        post: {
            parameters: {
                query?: {
                    /** @description With a JSON Lines body: the model */
                    model?: string;
                    webhook_url?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "model": "acme/pixel/fast",
                     *       "items": [
                     *         {
                     *           "custom_id": "sku-1",
                     *           "input": {
                     *             "prompt": "a red chair"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description The model every item runs */
                        model: string;
                        /** @description The items: {custom_id, input} each (custom_id optional, at most 200 characters) */
                        items?: unknown[];
                        /** @description Or a JSON Lines file of the items (POST /files?purpose=batch) */
                        input_file_id?: string;
                        /** @description Receives batch.completed and friends */
                        webhook_url?: string;
                        metadata?: {
                            [key: string]: string;
                        };
                    };
                    "application/jsonl": string;
                };
            };
            responses: {
                /** @description The batch, in progress */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Batch"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/batches/{batchId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A batch: status, counts, tokens charged */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    batchId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The batch */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Batch"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/batches/{batchId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a batch: lines not started end canceled, its runs are canceled
         * @description Lines not yet admitted end canceled (no charge); runs waiting or executing are canceled, each charged what it delivered (the partial-cancel rules). The batch is canceling until they have ended, then canceled. A batch that has ended is answered as it is.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    batchId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The batch, canceling */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Batch"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/batches/{batchId}/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A batch's results: one JSON line per ended item, in line order
         * @description application/jsonl: one BatchResultLine a line, per item that has ended (items still waiting or running are not in it yet).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    batchId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description JSON Lines: each line one BatchResultLine */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/jsonl": components["schemas"]["BatchResultLine"];
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/batches/{batchId}/errors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A batch's errors: the lines of its results that did not complete
         * @description application/jsonl: one BatchResultLine a line, per item that has ended (items still waiting or running are not in it yet).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    batchId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description JSON Lines: each line one BatchResultLine */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/jsonl": components["schemas"]["BatchResultLine"];
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook endpoints */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The caller's endpoints (never their secrets) */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                webhooks: components["schemas"]["WebhookEndpoint"][];
                                total: number;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Register a webhook endpoint */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "url": "https://example.com/hooks",
                     *       "events": [
                     *         "run.completed",
                     *         "run.failed"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** Format: uri */
                        url: string;
                        events?: ("run.started" | "run.completed" | "run.failed" | "run.canceled" | "account.balance_low" | "key.budget_reached" | "batch.completed" | "batch.expired" | "batch.canceled")[];
                    };
                };
            };
            responses: {
                /** @description The endpoint and its signing secret, shown only now */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: string;
                                url: string;
                                events: ("run.started" | "run.completed" | "run.failed" | "run.canceled" | "account.balance_low" | "key.budget_reached" | "batch.completed" | "batch.expired" | "batch.canceled")[];
                                /** @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJkU3Fx9w8Lg= */
                                signing_secret: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/default/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Signing secret of per-run webhook_url deliveries */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The account's default secret for this mode */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJkU3Fx9w8Lg= */
                                signing_secret: string;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a webhook endpoint */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhookId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The endpoint */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["WebhookEndpoint"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a webhook endpoint */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhookId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: string;
                                /** @enum {boolean} */
                                deleted: true;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change the events an endpoint subscribes to */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhookId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "events": [
                     *         "run.completed"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        events: ("run.started" | "run.completed" | "run.failed" | "run.canceled" | "account.balance_low" | "key.budget_reached" | "batch.completed" | "batch.expired" | "batch.canceled")[];
                    };
                };
            };
            responses: {
                /** @description The endpoint */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["WebhookEndpoint"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/api/v1/webhooks/{webhookId}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-enable a disabled endpoint (resets its failure count) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhookId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The endpoint, active */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["WebhookEndpoint"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the signing secret (the previous one signs alongside for 24 h) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhookId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The new secret, shown only now */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: string;
                                /** @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJkU3Fx9w8Lg= */
                                signing_secret: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                previous_secret_expires_at: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Delivery log of an endpoint, newest first, with every attempt */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    webhookId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of deliveries */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                deliveries: components["schemas"]["Delivery"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a delivery again (same body, new delivery id) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhookId: string;
                    deliveryId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Queued */
                202: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                delivery_id: string;
                                redelivery_of: string;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhookId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed webhook.test event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhookId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Queued */
                202: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                delivery_id: string;
                                /** @enum {string} */
                                event: "webhook.test";
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's tokens: balance, reserved and available */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The caller's account */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Account"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's ledger, newest first (grants, reservations, charges, releases)
         * @description Live mode's tokens only: a test key gets an empty ledger (test runs never touch tokens).
         */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                    run_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of ledger entries */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                entries: components["schemas"]["LedgerEntry"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/account/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Tokens charged per UTC day (today included) */
        get: {
            parameters: {
                query?: {
                    days?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One entry per day, oldest first */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Requests allowed per minute for this key */
                        "RateLimit-Limit"?: string;
                        /** @description Requests left in the current minute */
                        "RateLimit-Remaining"?: string;
                        /** @description Seconds until the window resets */
                        "RateLimit-Reset"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                days: {
                                    /**
                                     * Format: date
                                     * @example 2026-11-21
                                     */
                                    date: string;
                                    tokens_charged: number;
                                    runs_charged: number;
                                }[];
                                total_tokens_charged: number;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in person, their account and the CSRF token */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The session */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                user: {
                                    id: string;
                                    email: string;
                                    /** @enum {string} */
                                    role: "owner" | "member" | "operator";
                                };
                                account: {
                                    id: string;
                                    name: string;
                                };
                                csrf_token: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                expires_at: string;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Sign in with email and password; sets the session cookie */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "email": "demo@example.com",
                     *       "password": "correct horse battery"
                     *     }
                     */
                    "application/json": {
                        email: string;
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Signed in */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                csrf_token: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                expires_at: string;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/session/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the session */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Signed out */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @enum {boolean} */
                                signed_out: true;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's API keys, newest first (prefixes only), with the tokens each spent today and this month (UTC) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Keys of both modes */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                keys: components["schemas"]["ListedApiKey"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create an API key (owners); the full key is in this answer only */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "name": "production server",
                     *       "mode": "live",
                     *       "expires_at": "2027-06-30T00:00:00Z",
                     *       "allowed_models": [
                     *         "acme/pixel-hq"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        name: string;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /**
                         * Format: date-time
                         * @description After it, the key answers 401 like a revoked one; null: it never expires
                         */
                        expires_at?: string | null;
                        /** @description The only models the key may run (others: 403 MODEL_NOT_ALLOWED); null or []: every model */
                        allowed_models?: string[] | null;
                        /** @description At most `tokens` reserved or charged by the key's live runs created per UTC day, UTC month, or in all (`total`); a run past it answers 402 KEY_BUDGET_EXCEEDED. null: no budget */
                        budget?: {
                            tokens: number;
                            /** @enum {string} */
                            period: "day" | "month" | "total";
                        } | null;
                        /** @description Runs of this key executing at once on models of limited capacity, on top of the account's limit; more wait QUEUED. null: only the account's limit */
                        max_concurrent_runs?: number | null;
                    };
                };
            };
            responses: {
                /** @description The key */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example key_0gTfH5M8l3n9sYx2ZpQb4c */
                                id: string;
                                name: string;
                                /** @enum {string} */
                                mode: "live" | "test";
                                /** @description The key's first characters; never enough to use it */
                                prefix: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                last_used_at: string | null;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                revoked_at: string | null;
                                /**
                                 * Format: date-time
                                 * @description After it, the key answers 401; null: never
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                expires_at: string | null;
                                /** @description The only models the key may run; null: every model */
                                allowed_models: string[] | null;
                                /** @description The key's spend budget; null: none */
                                budget: {
                                    /** @description At most this many tokens per period */
                                    tokens: number;
                                    /**
                                     * @description A UTC day, a UTC month, or the key's whole life
                                     * @enum {string}
                                     */
                                    period: "day" | "month" | "total";
                                    /** @description Reserved (runs in flight) or charged by the key's live runs created in the current period */
                                    used: number;
                                    remaining: number;
                                    /**
                                     * Format: date-time
                                     * @example 2026-11-21T06:49:03.120Z
                                     */
                                    period_start: string;
                                    /**
                                     * Format: date-time
                                     * @description When the budget is whole again; null for total
                                     * @example 2026-11-21T06:49:03.120Z
                                     */
                                    resets_at: string | null;
                                } | null;
                                /** @description Runs of the key executing at once on limited models; null: the account's limit only */
                                max_concurrent_runs: number | null;
                                /** @description The full key, shown only in this answer */
                                key: string;
                            };
                            message: string;
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change an API key's expiry, models, budget or concurrency limit (owners); expiry and models in effect within AUTH_CACHE_TTL_MS, the others at once */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    keyId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "allowed_models": [
                     *         "acme/pixel-hq",
                     *         "acme/echo"
                     *       ],
                     *       "budget": {
                     *         "tokens": 500,
                     *         "period": "day"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: date-time
                         * @description After it, the key answers 401 like a revoked one; null: it never expires
                         */
                        expires_at?: string | null;
                        /** @description The only models the key may run (others: 403 MODEL_NOT_ALLOWED); null or []: every model */
                        allowed_models?: string[] | null;
                        /** @description At most `tokens` reserved or charged by the key's live runs created per UTC day, UTC month, or in all (`total`); a run past it answers 402 KEY_BUDGET_EXCEEDED. null: no budget */
                        budget?: {
                            tokens: number;
                            /** @enum {string} */
                            period: "day" | "month" | "total";
                        } | null;
                        /** @description Runs of this key executing at once on models of limited capacity, on top of the account's limit; more wait QUEUED. null: only the account's limit */
                        max_concurrent_runs?: number | null;
                    };
                };
            };
            responses: {
                /** @description The key as it is now */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ApiKey"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/console/api/keys/{keyId}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke an API key (owners); it stops working within AUTH_CACHE_TTL_MS */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    keyId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                id: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                revoked_at: string;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/account/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set the low-balance threshold of account.balance_low (owners)
         * @description account.balance_low goes to live webhook endpoints subscribed to it when a reservation leaves available tokens below the threshold, once; setting the threshold (or a grant that brings available tokens back to it) arms it again. null: no alert.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "low_balance_threshold": 500
                     *     }
                     */
                    "application/json": {
                        low_balance_threshold: number | null;
                    };
                };
            };
            responses: {
                /** @description The threshold now */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                low_balance_threshold: number | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/console/api/security-log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What operators of the service did to this account, newest first (owners)
         * @description Every operator action on the account, from the console or the CLI: grants and deductions, scheduling, people added or changed (an operator may add an owner, for instance to help someone locked out), keys made or revoked by the CLI; who, when, before and after, and the reason they gave.
         */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of the account's security log */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                entries: components["schemas"]["AuditEntry"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every account (newest first), or those whose id or name contains q: tokens, usage, scheduling */
        get: {
            parameters: {
                query?: {
                    q?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Accounts */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                accounts: components["schemas"]["OperatorAccount"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Open an account, with an opening grant (a ledger GRANT) when tokens is given */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "name": "Acme Studio",
                     *       "tokens": 10000,
                     *       "reason": "contract 2026-31 signed"
                     *     }
                     */
                    "application/json": {
                        name: string;
                        /** @default 0 */
                        tokens?: number;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The account */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["OperatorAccount"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/accounts/{accountId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One account: its figures, people, keys (prefixes and limits, never secrets) and newest ledger entries */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    accountId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The account */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                account: components["schemas"]["OperatorAccount"];
                                people: components["schemas"]["Person"][];
                                /** @description Prefixes and limits only: a key's secret is never stored */
                                keys: components["schemas"]["ApiKey"][];
                                /** @description The newest 20 entries */
                                ledger: components["schemas"]["LedgerEntry"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Set an account's weight and runs at once (null: ACCOUNT_MAX_CONCURRENT_RUNS); waiting runs follow within a sweep */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    accountId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "weight": 2,
                     *       "max_concurrent_runs": 20,
                     *       "reason": "enterprise plan"
                     *     }
                     */
                    "application/json": {
                        weight?: number;
                        max_concurrent_runs?: number | null;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The account now */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["OperatorAccount"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/console/api/operator/accounts/{accountId}/adjustments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Grant (amount > 0) or deduct (amount < 0) tokens with a reason: a GRANT or DEDUCT ledger entry
         * @description Balances are never edited: the entry moves them. A deduction may not take available tokens below zero (402 INSUFFICIENT_TOKENS, nothing changes); one that leaves them below the account's low-balance threshold sends account.balance_low. A balance holds at most 2,147,483,647 tokens: a grant past it is 400 VALIDATION_ERROR and changes nothing.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    accountId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "amount": 5000,
                     *       "reason": "invoice 2026-114 paid"
                     *     }
                     */
                    "application/json": {
                        amount: number;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The account after the entry */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["OperatorAccount"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not enough available tokens (INSUFFICIENT_TOKENS), or the API key's spend budget for its period is used up (KEY_BUDGET_EXCEEDED); nothing was created */
                402: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/accounts/{accountId}/people": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a person (owner or member) who signs in to the account's console */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    accountId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "email": "ada@example.com",
                     *       "password": "a long enough password",
                     *       "role": "member",
                     *       "reason": "support ticket 4711: owner locked out"
                     *     }
                     */
                    "application/json": {
                        email: string;
                        password: string;
                        /** @enum {string} */
                        role: "owner" | "member";
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The person */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Person"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/people/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change a person's role, or disable (ending their sessions) or enable them */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    userId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "disabled": true,
                     *       "reason": "left the company"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        role?: "owner" | "member";
                        disabled?: boolean;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The person now */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Person"];
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/console/api/operator/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The whole catalogue, whatever the status, with each limited model's queue health */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Models */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                models: components["schemas"]["OperatorModel"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/models/{modelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a model's price, status, queue cap, or a Cog model's servers and concurrency
         * @description New runs are priced and admitted by it within CATALOGUE_CACHE_TTL_MS; capacity follows at the pool monitor's next pass. Runs already made keep the price they reserved.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Model id; it may contain slashes (vendor/model or vendor/family/variant) */
                    modelId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "tokens_per_unit": 6,
                     *       "servers": [
                     *         "http://gpu-0:5000",
                     *         "http://gpu-1:5000"
                     *       ],
                     *       "reason": "second GPU online"
                     *     }
                     */
                    "application/json": {
                        tokens_per_unit?: number;
                        status?: string;
                        max_queue?: number | null;
                        servers?: string[];
                        concurrency?: number;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The model now (a list of one) */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                models: components["schemas"]["OperatorModel"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/console/api/operator/models/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a model served by a Cog server: its input schema from the server's /openapi.json
         * @description The server may be on a private network, but never at a link-local or cloud metadata address. Its answers are not echoed: the import says the server could not be reached, or did not answer as a Cog server. With `like`, the model takes that model's public input schema (translated by `input_map`) and the server is not asked. An id that exists already is 409 MODEL_EXISTS unless `replace` is true (the audit entry then holds the model replaced). The model's public description never names the server.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "cog_url": "http://gpu-0:5000",
                     *       "id": "you/sdxl",
                     *       "category": "image",
                     *       "tokens_per_unit": 5,
                     *       "reason": "new model for the spring launch"
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Cog server URL
                         * @example http://gpu-0:5000
                         */
                        cog_url: string;
                        /**
                         * @description What the model makes
                         * @default image
                         * @enum {string}
                         */
                        category?: "image" | "video" | "audio";
                        /** @description What a unit of its price is (default: image for images, else run) */
                        unit?: string;
                        /** @description The input field that counts units (default for images: num_outputs) */
                        units_from?: string;
                        /** @description Front it with this model's public input schema (the server is not asked) */
                        like?: string;
                        /**
                         * @description How that public input becomes the model's: { rename, expand }
                         * @default {
                         *       "rename": {},
                         *       "expand": {}
                         *     }
                         */
                        input_map?: {
                            /** @default {} */
                            rename?: {
                                [key: string]: string;
                            };
                            /** @default {} */
                            expand?: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: unknown;
                                    };
                                };
                            };
                        };
                        /**
                         * @description How a prediction's end comes back: sync (on its request, the fastest) or async (by webhook; a run taken over after a worker died re-attaches instead of starting again, for long predictions)
                         * @default sync
                         * @enum {string}
                         */
                        predictions?: "sync" | "async";
                        /**
                         * @description The model's id in the catalogue
                         * @example you/sdxl
                         */
                        id: string;
                        /** @description Its name (default: the id) */
                        name?: string;
                        /** @description Its public description (never the server's address) */
                        description?: string;
                        /** @description Its price: tokens per image, second or run */
                        tokens_per_unit: number;
                        /** @description active (the default) to run; any other status keeps it from running */
                        status?: string;
                        /**
                         * @description Replace a model of this id (refused otherwise)
                         * @default false
                         */
                        replace?: boolean;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The model (a list of one) */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                models: components["schemas"]["OperatorModel"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/models/import-openai": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a model served by OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI)
         * @description The server must list the model at /v1/models (with the key, if one is given); its answers are not echoed. The model takes its API's public input (images: prompt, image_size, num_images, seed; videos: prompt, duration_seconds, video_size, first_frame; speech: prompt, voice, format) and is priced per image, second of video or speech. The key is stored sealed with SECRETS_KEY and never shown again. An id that exists already is 409 MODEL_EXISTS unless `replace` is true.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "server_url": "http://gpu-1:8091",
                     *       "model": "Qwen/Qwen-Image",
                     *       "api": "images",
                     *       "id": "you/qwen-image",
                     *       "tokens_per_unit": 4,
                     *       "reason": "Qwen-Image on the new GPUs"
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Server URL
                         * @example http://gpu-1:8091
                         */
                        server_url: string;
                        /**
                         * @description The model's id at /v1/models
                         * @example Qwen/Qwen-Image
                         */
                        model: string;
                        /**
                         * @description images, videos or speech
                         * @enum {string}
                         */
                        api: "images" | "videos" | "speech";
                        /** @description The servers' key (stored sealed, never shown again) */
                        api_key?: string;
                        /**
                         * @description The model's id in the catalogue
                         * @example you/sdxl
                         */
                        id: string;
                        /** @description Its name (default: the id) */
                        name?: string;
                        /** @description Its public description (never the server's address) */
                        description?: string;
                        /** @description Its price: tokens per image, second or run */
                        tokens_per_unit: number;
                        /** @description active (the default) to run; any other status keeps it from running */
                        status?: string;
                        /**
                         * @description Replace a model of this id (refused otherwise)
                         * @default false
                         */
                        replace?: boolean;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The model (a list of one) */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                models: components["schemas"]["OperatorModel"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/models/import-comfyui": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a ComfyUI workflow as a model: its input fields are its bindings
         * @description `workflow` is ComfyUI's API format (node id -> { class_type, inputs }, what Export (API) saves); `bindings` map the model's input fields to node inputs ({ field, node, input } — input may be { width, height } for image_size — and file: true for an image uploaded with /upload/image). Bindings must name nodes and inputs the workflow has; the server must answer /system_stats. An id that exists already is 409 MODEL_EXISTS unless `replace` is true.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    /**
                     * @example {
                     *       "server_url": "http://gpu-2:8188",
                     *       "workflow": {
                     *         "6": {
                     *           "class_type": "CLIPTextEncode",
                     *           "inputs": {
                     *             "text": "a photo",
                     *             "clip": [
                     *               "4",
                     *               1
                     *             ]
                     *           }
                     *         }
                     *       },
                     *       "bindings": [
                     *         {
                     *           "field": "prompt",
                     *           "node": "6",
                     *           "input": "text"
                     *         }
                     *       ],
                     *       "id": "you/sd15-comfy",
                     *       "tokens_per_unit": 2,
                     *       "reason": "our SD 1.5 workflow"
                     *     }
                     */
                    "application/json": {
                        /**
                         * Format: uri
                         * @description ComfyUI server URL
                         * @example http://gpu-2:8188
                         */
                        server_url: string;
                        /** @description ComfyUI's API format (node id -> { class_type, inputs }): what Export (API) saves */
                        workflow: {
                            [key: string]: unknown;
                        };
                        /** @description The model's input fields, each bound to a node input: [{ field, node, input, file? }] */
                        bindings: {
                            [key: string]: unknown;
                        }[];
                        /**
                         * @description What the workflow makes
                         * @default image
                         * @enum {string}
                         */
                        category?: "image" | "video" | "audio";
                        /** @description The workflow's LoRA slots: nodes that load a LoRA from a URL, [{ node, url, strength, strength_clip? }]; the model then takes a run's loras */
                        loras?: {
                            node: string;
                            url: string;
                            strength: string;
                            strength_clip?: string;
                        }[];
                        /**
                         * @description The model's id in the catalogue
                         * @example you/sdxl
                         */
                        id: string;
                        /** @description Its name (default: the id) */
                        name?: string;
                        /** @description Its public description (never the server's address) */
                        description?: string;
                        /** @description Its price: tokens per image, second or run */
                        tokens_per_unit: number;
                        /** @description active (the default) to run; any other status keeps it from running */
                        status?: string;
                        /**
                         * @description Replace a model of this id (refused otherwise)
                         * @default false
                         */
                        replace?: boolean;
                        reason: string;
                    };
                };
            };
            responses: {
                /** @description The model (a list of one) */
                201: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                models: components["schemas"]["OperatorModel"][];
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflict with the resource's state (MODEL_NOT_ACTIVE, RUN_NOT_CANCELABLE, IDEMPOTENCY_KEY_REUSED; console: KEY_LIMIT_REACHED) */
                409: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/operator/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log, newest first: who did what to which account or model, before and after */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                    account_id?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of the audit log */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                entries: components["schemas"]["AuditEntry"][];
                                next_cursor: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/api/{mode}/runs/{runId}/detail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Everything the run page shows: input, output, error, timestamps, tokens */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    mode: "live" | "test";
                    runId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The run */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example run_4ReEbWIXuDXbjwlguHgMmo */
                                run_id: string;
                                /** @enum {string} */
                                status: "QUEUED" | "EXECUTING" | "COMPLETED" | "FAILED" | "CANCELED";
                                model_id: string;
                                /** @enum {string} */
                                mode: "live" | "test";
                                /**
                                 * @description The API it was made through: ours, Replicate's or OpenAI's
                                 * @enum {string}
                                 */
                                api: "native" | "replicate" | "openai";
                                input: {
                                    [key: string]: unknown;
                                };
                                /**
                                 * @example {
                                 *       "images": [
                                 *         "https://runs.example.com/files/out_70roCqjUmmTprm0UySY0KD/0.png"
                                 *       ]
                                 *     }
                                 */
                                output: {
                                    [key: string]: unknown;
                                } | null;
                                error: {
                                    code: string;
                                    message: string;
                                } | null;
                                estimated_tokens: number;
                                tokens_charged: number | null;
                                attempts: number;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                started_at: string | null;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                completed_at: string | null;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T06:49:03.120Z
                                 */
                                canceled_at: string | null;
                            };
                        };
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Console only: missing or wrong X-CSRF-Token, a cross-site request, or an action the user's role does not allow (FORBIDDEN) */
                403: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body larger than the limit (PAYLOAD_TOO_LARGE) */
                413: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body that is not application/json, or in a Content-Encoding other than gzip or deflate (UNSUPPORTED_MEDIA_TYPE) */
                415: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over a limit (RATE_LIMITED: per-key rate, held streams and waits, failed authentications; TEST_RUN_QUOTA_EXCEEDED: the account's test runs for the day; MODEL_QUEUE_FULL: the model's queue cap); see Retry-After */
                429: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unexpected error (INTERNAL_ERROR) */
                500: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process runs */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Alive */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @enum {string} */
                                status: "ok";
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: Postgres answers and Redis takes the queues' keys (503 naming what is wrong, and while draining for shutdown) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Ready */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @enum {string} */
                                status: "ready";
                                checks: {
                                    /** @enum {string} */
                                    postgres: "ok";
                                    /** @enum {string} */
                                    redis: "ok";
                                };
                            };
                        };
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (bearer METRICS_TOKEN when configured) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Prometheus text exposition */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description Missing, malformed, unknown or revoked API key (UNAUTHORIZED); WWW-Authenticate: Bearer */
                401: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OpenAPI 3.1 */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, never>;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Human-readable API documentation rendered from this document */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description HTML page */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "text/html": string;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/inputs/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An input file, for model servers (a signed URL the worker hands them; no key) */
        get: {
            parameters: {
                query: {
                    /** @description Unix time (s) after which the URL answers 404 */
                    expires?: number | null;
                    signature: string;
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The file, with its media type */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "*/*": string;
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/weights/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Weights' bytes, for model servers (a signed URL the worker hands them; no key) */
        get: {
            parameters: {
                query: {
                    /** @description Unix time (s) after which the URL answers 404 */
                    expires?: number | null;
                    signature: string;
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The safetensors file */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/octet-stream": string;
                    };
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/{token}/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's output file (public, unguessable URL; no key)
         * @description Streamed from the configured store (a local directory or an S3-compatible bucket), with Range and conditional requests. With OUTPUT_URLS=signed, runs show presigned bucket URLs instead, made at each read; this path keeps serving the same files.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    token: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The file, inline with its media type when it is one of the allowed output types; anything else as an application/octet-stream attachment. Always with X-Content-Type-Options: nosniff and Content-Security-Policy: default-src 'none'; sandbox. */
                200: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "image/png": string;
                        "image/jpeg": string;
                        "image/webp": string;
                        "image/gif": string;
                        "video/mp4": string;
                        "video/webm": string;
                        "audio/wav": string;
                        "audio/mpeg": string;
                        "audio/ogg": string;
                        "audio/flac": string;
                        "application/octet-stream": string;
                    };
                };
                /** @description The part asked for with Range (Content-Range says which). */
                206: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/octet-stream": string;
                    };
                };
                /** @description Not modified (If-None-Match or If-Modified-Since). */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid request (INVALID_JSON or VALIDATION_ERROR, with details) */
                400: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Unknown id, or one of another account or mode */
                404: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The output was deleted after the retention period (OUTPUT_EXPIRED) */
                410: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The Range is not within the file (RANGE_NOT_SATISFIABLE); Content-Range: bytes *\/<size> */
                416: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Postgres or Redis unavailable (SERVICE_UNAVAILABLE); safe to retry after Retry-After */
                503: {
                    headers: {
                        /** @description Id of this request: the client's, if well formed, else a new one */
                        "X-Request-Id"?: string;
                        /** @description Seconds to wait before retrying */
                        "Retry-After"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = {
    "run.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The run.started event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        event: "run.started";
                        /** @description Registered endpoints only: the endpoint's id */
                        webhook_id?: string;
                        data: {
                            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
                            run_id: string;
                            model_id: string;
                            /**
                             * Format: date-time
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            started_at: string;
                            /**
                             * Format: date-time
                             * @description Registered endpoints only: when it happened
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            timestamp?: string;
                        };
                        /**
                         * Format: date-time
                         * @description Registered endpoints only: when the delivery was made
                         * @example 2026-11-21T06:49:03.120Z
                         */
                        created_at?: string;
                    };
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the delivery; anything else is retried. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "run.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The run.completed event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        event: "run.completed";
                        /** @description Registered endpoints only: the endpoint's id */
                        webhook_id?: string;
                        data: {
                            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
                            run_id: string;
                            model_id: string;
                            /** @description The run's output */
                            result: {
                                [key: string]: unknown;
                            };
                            tokens_charged: number;
                            /**
                             * Format: date-time
                             * @description Registered endpoints only: when it happened
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            timestamp?: string;
                        };
                        /**
                         * Format: date-time
                         * @description Registered endpoints only: when the delivery was made
                         * @example 2026-11-21T06:49:03.120Z
                         */
                        created_at?: string;
                    };
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the delivery; anything else is retried. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "run.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The run.failed event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        event: "run.failed";
                        /** @description Registered endpoints only: the endpoint's id */
                        webhook_id?: string;
                        data: {
                            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
                            run_id: string;
                            model_id: string;
                            error: {
                                message: string;
                                code: string;
                            };
                            /** @enum {number} */
                            tokens_charged: 0;
                            /**
                             * Format: date-time
                             * @description Registered endpoints only: when it happened
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            timestamp?: string;
                        };
                        /**
                         * Format: date-time
                         * @description Registered endpoints only: when the delivery was made
                         * @example 2026-11-21T06:49:03.120Z
                         */
                        created_at?: string;
                    };
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the delivery; anything else is retried. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "run.canceled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The run.canceled event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        event: "run.canceled";
                        /** @description Registered endpoints only: the endpoint's id */
                        webhook_id?: string;
                        data: {
                            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
                            run_id: string;
                            model_id: string;
                            /**
                             * Format: date-time
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            canceled_at?: string;
                            tokens_charged: number;
                            /**
                             * Format: date-time
                             * @description Registered endpoints only: when it happened
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            timestamp?: string;
                        };
                        /**
                         * Format: date-time
                         * @description Registered endpoints only: when the delivery was made
                         * @example 2026-11-21T06:49:03.120Z
                         */
                        created_at?: string;
                    };
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the delivery; anything else is retried. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "account.balance_low": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The account.balance_low event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        event: "account.balance_low";
                        /** @description Registered endpoints only: the endpoint's id */
                        webhook_id?: string;
                        data: {
                            /** @description What the reservation that crossed the threshold left */
                            available_tokens: number;
                            /** @description The account's low-balance threshold */
                            threshold: number;
                            /**
                             * Format: date-time
                             * @description Registered endpoints only: when it happened
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            timestamp?: string;
                        };
                        /**
                         * Format: date-time
                         * @description Registered endpoints only: when the delivery was made
                         * @example 2026-11-21T06:49:03.120Z
                         */
                        created_at?: string;
                    };
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the delivery; anything else is retried. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "key.budget_reached": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The key.budget_reached event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        event: "key.budget_reached";
                        /** @description Registered endpoints only: the endpoint's id */
                        webhook_id?: string;
                        data: {
                            key_id: string;
                            key_name: string;
                            budget_tokens: number;
                            /** @enum {string} */
                            period: "day" | "month" | "total";
                            /** @description Reserved or charged in the period when the run was refused */
                            used_tokens: number;
                            /** @description What the refused run would have reserved */
                            needed_tokens: number;
                            /**
                             * Format: date-time
                             * @description When the budget is whole again; null for total
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            resets_at: string | null;
                            /**
                             * Format: date-time
                             * @description Registered endpoints only: when it happened
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            timestamp?: string;
                        };
                        /**
                         * Format: date-time
                         * @description Registered endpoints only: when the delivery was made
                         * @example 2026-11-21T06:49:03.120Z
                         */
                        created_at?: string;
                    };
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the delivery; anything else is retried. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The webhook.test event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        event: "webhook.test";
                        /** @description Registered endpoints only: the endpoint's id */
                        webhook_id?: string;
                        data: {
                            message: string;
                            /**
                             * Format: date-time
                             * @description Registered endpoints only: when it happened
                             * @example 2026-11-21T06:49:03.120Z
                             */
                            timestamp?: string;
                        };
                        /**
                         * Format: date-time
                         * @description Registered endpoints only: when the delivery was made
                         * @example 2026-11-21T06:49:03.120Z
                         */
                        created_at?: string;
                    };
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the delivery; anything else is retried. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type components = {
    schemas: {
        /** @description data of a progress event of GET /runs/{runId}/events */
        RunProgress: {
            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
            run_id: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            at: string;
            completed?: number;
            total?: number;
            logs?: string;
            output?: unknown;
        };
        Model: {
            /** @example acme/pixel/fast */
            id: string;
            name: string;
            description: string;
            /** @enum {string} */
            category: "image" | "video" | "audio";
            outputs_image: boolean;
            outputs_video: boolean;
            outputs_audio: boolean;
            /** @example 2 */
            estimated_tokens: number;
            /** @example active */
            status: string;
            highlighted: boolean;
        };
        /**
         * @example {
         *       "error": {
         *         "code": "VALIDATION_ERROR",
         *         "message": "Invalid request query: limit: expected an integer from 1 to 200.",
         *         "details": [
         *           {
         *             "path": "limit",
         *             "message": "expected an integer from 1 to 200"
         *           }
         *         ],
         *         "request_id": "req_3RmyhIeXARDIpLowOdbJwH"
         *       }
         *     }
         */
        Error: {
            error: {
                /** @enum {string} */
                code: "INVALID_JSON" | "VALIDATION_ERROR" | "UNAUTHORIZED" | "FORBIDDEN" | "MODEL_NOT_ALLOWED" | "INSUFFICIENT_TOKENS" | "KEY_BUDGET_EXCEEDED" | "MODEL_NOT_FOUND" | "RUN_NOT_FOUND" | "WEBHOOK_NOT_FOUND" | "FILE_NOT_FOUND" | "WEIGHTS_NOT_FOUND" | "BATCH_NOT_FOUND" | "NOT_FOUND" | "RUN_NOT_CANCELABLE" | "OUTPUT_EXPIRED" | "MODEL_NOT_ACTIVE" | "IDEMPOTENCY_KEY_REUSED" | "KEY_LIMIT_REACHED" | "WEIGHTS_LIMIT_REACHED" | "MODEL_EXISTS" | "PAYLOAD_TOO_LARGE" | "FILE_QUOTA_EXCEEDED" | "UNSUPPORTED_MEDIA_TYPE" | "RANGE_NOT_SATISFIABLE" | "RATE_LIMITED" | "TEST_RUN_QUOTA_EXCEEDED" | "MODEL_QUEUE_FULL" | "INTERNAL_ERROR" | "SERVICE_UNAVAILABLE" | "WAIT_TIMEOUT" | "RUN_FAILED";
                message: string;
                details?: {
                    path: string;
                    message: string;
                }[];
                request_id: string;
            };
        };
        ModelDetail: {
            /** @example acme/pixel/fast */
            id: string;
            name: string;
            description: string;
            /** @enum {string} */
            category: "image" | "video" | "audio";
            outputs_image: boolean;
            outputs_video: boolean;
            outputs_audio: boolean;
            /** @example 2 */
            estimated_tokens: number;
            /** @example active */
            status: string;
            highlighted: boolean;
            /** @description Runs of this model waiting now (null while the queue cannot be read) */
            queue_length: number | null;
            /** @description Runs this model can execute at once now: its healthy model servers x their concurrency, or the workers' render threads for built-in generators; null for a model of unlimited capacity (acme/echo), or while the queue cannot be read */
            capacity: number | null;
            /** @description Runs holding one of those places now (null when capacity is) */
            in_flight: number | null;
            /** @description Median execution time of the model's last 100 completed runs; null before any */
            run_time_p50_ms: number | null;
            /** @description JSON Schema of the run input */
            input_schema: {
                [key: string]: unknown;
            };
            pricing: {
                unit: string;
                tokens_per_unit: number;
                units_from: string | null;
                description: string;
            };
        };
        RunCreated: {
            data: {
                /** @example run_4ReEbWIXuDXbjwlguHgMmo */
                run_id: string;
                /**
                 * @description queued; with Prefer: wait, the terminal status when the run ended within the wait
                 * @enum {string}
                 */
                status: "queued" | "COMPLETED" | "FAILED" | "CANCELED";
                model_id: string;
                model_name: string;
                estimated_tokens: number;
                is_test_request: boolean;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                created_at: string;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                started_at?: string;
                /**
                 * @example {
                 *       "images": [
                 *         "https://runs.example.com/files/out_70roCqjUmmTprm0UySY0KD/0.png"
                 *       ]
                 *     }
                 */
                output?: {
                    [key: string]: unknown;
                };
                tokens_charged?: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                completed_at?: string;
                duration_ms?: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                canceled_at?: string;
                error?: {
                    message: string;
                    /** @enum {string} */
                    code: "CONTENT_POLICY" | "INVALID_INPUT" | "MODEL_ERROR" | "TIMEOUT" | "INTERNAL_ERROR" | "INPUT_FILE_UNAVAILABLE";
                } | {
                    message: string;
                    /** @enum {string} */
                    code: "CANCEL_AFTER";
                };
            };
        };
        /** @description Fields by status, as in the interface specification */
        Run: {
            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
            run_id: string;
            /** @enum {string} */
            status: "QUEUED" | "EXECUTING";
            model_id: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            started_at?: string;
            /** @description QUEUED: 1 + the queued runs of the same model created before it */
            queue_position?: number;
            /**
             * Format: date-time
             * @description QUEUED: when it should start; null while no worker is alive or no run finished lately
             * @example 2026-11-21T06:49:03.120Z
             */
            estimated_start_at?: string | null;
        } | {
            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
            run_id: string;
            /** @enum {string} */
            status: "COMPLETED";
            model_id: string;
            /**
             * @example {
             *       "images": [
             *         "https://runs.example.com/files/out_70roCqjUmmTprm0UySY0KD/0.png"
             *       ]
             *     }
             */
            output: {
                [key: string]: unknown;
            };
            tokens_charged: number;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            completed_at: string;
            duration_ms: number;
        } | {
            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
            run_id: string;
            /** @enum {string} */
            status: "FAILED";
            error: {
                message: string;
                /** @enum {string} */
                code: "CONTENT_POLICY" | "INVALID_INPUT" | "MODEL_ERROR" | "TIMEOUT" | "INTERNAL_ERROR" | "INPUT_FILE_UNAVAILABLE";
            };
        } | {
            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
            run_id: string;
            /** @enum {string} */
            status: "CANCELED";
            model_id: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            started_at?: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            canceled_at: string;
            tokens_charged: number;
            /** @description Set when the service canceled it (Cancel-After) */
            error?: {
                message: string;
                /** @enum {string} */
                code: "CANCEL_AFTER";
            };
        };
        File: {
            /** @example file_5bS2vVd1LnZRvYqNZ3H9aA */
            id: string;
            /**
             * @description GET it with the key (or give it, or the id, as a file input)
             * @example https://svc.example.com/api/v1/files/file_5bS2vVd1LnZRvYqNZ3H9aA/content
             */
            url: string;
            /**
             * @description Decided by the file's bytes
             * @example image/png
             */
            content_type: string;
            size: number;
            sha256: string;
            /** @description An image's width (null for video and audio) */
            width: number | null;
            height: number | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            expires_at: string;
        };
        Weights: {
            /** @example wts_2kdpCM5tfN6vjSuI1aG2v2 */
            id: string;
            /** @example our-brand-style */
            name: string;
            size: number;
            sha256: string;
            tensor_count: number;
            /** @description lora_down's first dimension, when every layer agrees on it */
            rank: number | null;
            /** @description The layers it changes (kohya names) */
            layers: string[];
            /** @description The base model its metadata names (ss_base_model_version, modelspec.architecture) */
            base_hints: string[];
            /** @enum {string} */
            origin: "upload" | "url";
            /** @description Published by the operator: every account's runs may name them (listed to all; only their owner deletes them) */
            published: boolean;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
        };
        Batch: {
            /** @example batch_2kdpCM5tfN6vjSuI1aG2v2 */
            id: string;
            model_id: string;
            /** @enum {string} */
            status: "validating" | "in_progress" | "finalizing" | "completed" | "failed" | "expired" | "canceling" | "canceled";
            counts: {
                /** @description Lines in */
                total: number;
                completed: number;
                /** @description Ended without an output: invalid lines, refused, failed, canceled or expired items */
                failed: number;
                /** @description Admitted, their runs not ended */
                running: number;
                /** @description Waiting to be admitted */
                pending: number;
            };
            tokens_charged: number;
            /** @description Percent off the model's price for each item */
            discount_percent: number;
            /** @description Why admission waits: insufficient_tokens, key_budget_exceeded (it goes on when they allow) */
            paused_reason: string | null;
            metadata: {
                [key: string]: string;
            } | null;
            webhook_url: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            expires_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            in_progress_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            finalizing_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            canceling_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            ended_at: string | null;
        };
        BatchResultLine: {
            line: number;
            custom_id: string | null;
            run_id: string | null;
            /** @enum {string} */
            status: "completed" | "failed" | "canceled" | "expired" | "invalid";
            output: {
                [key: string]: unknown;
            } | null;
            error: {
                code: string;
                message: string;
                param?: string | null;
            } | null;
            tokens_charged: number;
        };
        WebhookEndpoint: {
            /** @example wh_2kdpCM5tfN6vjSuI1aG2v2 */
            id: string;
            url: string;
            events: ("run.started" | "run.completed" | "run.failed" | "run.canceled" | "account.balance_low" | "key.budget_reached" | "batch.completed" | "batch.expired" | "batch.canceled")[];
            /** @enum {string} */
            status: "active" | "disabled";
            consecutive_failures: number;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            disabled_at: string | null;
        };
        Delivery: {
            id: string;
            event: string;
            run_id: string | null;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            completed_at: string | null;
            attempts: {
                number: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                started_at: string;
                duration_ms: number;
                status_code: number | null;
                /** @enum {string|null} */
                error_class: "timeout" | "connection" | "tls" | "redirect" | "http_status" | "refused_address" | null;
                success: boolean;
            }[];
        };
        Account: {
            /** @example acct_1bq0HXsL3kQ8cRYyyzqZ1W */
            id: string;
            name: string;
            /** @description Tokens granted minus tokens charged (live mode; 0 for a test key: test mode has no tokens) */
            balance: number;
            /** @description Tokens held for queued and executing live runs (0 for a test key) */
            reserved: number;
            /** @description balance - reserved: what new live runs can reserve (0 for a test key) */
            available: number;
            /**
             * @description The mode of the key that asked
             * @enum {string}
             */
            mode: "live" | "test";
            /** @description Runs of this account executing at once on models of limited capacity (ACCOUNT_MAX_CONCURRENT_RUNS unless set for the account); more wait QUEUED */
            max_concurrent_runs: number;
            /** @description The account's share of a busy model against other waiting accounts (turns in proportion to weights; 1 by default) */
            weight: number;
            /** @description account.balance_low is sent when a reservation leaves available tokens below it (owners set it in the console); null: never */
            low_balance_threshold: number | null;
            /** @description The limits of the API key that asked (its budget with what is used in the current period); null when no key asked */
            key: {
                id: string;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                expires_at: string | null;
                allowed_models: string[] | null;
                budget: components["schemas"]["KeyBudget"];
                max_concurrent_runs: number | null;
            } | null;
            /** @description Test runs of compute-costing models (all but acme/echo) the account may still start, across all of its test keys (while Redis cannot be reached, as this API process counts them) */
            test_runs: {
                /** @description TEST_RUNS_PER_DAY */
                limit: number;
                remaining: number;
                /**
                 * Format: date-time
                 * @description When the 24-hour window that began with the first counted test run ends
                 * @example 2026-11-21T06:49:03.120Z
                 */
                resets_at: string | null;
            };
        };
        KeyBudget: {
            /** @description At most this many tokens per period */
            tokens: number;
            /**
             * @description A UTC day, a UTC month, or the key's whole life
             * @enum {string}
             */
            period: "day" | "month" | "total";
            /** @description Reserved (runs in flight) or charged by the key's live runs created in the current period */
            used: number;
            remaining: number;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            period_start: string;
            /**
             * Format: date-time
             * @description When the budget is whole again; null for total
             * @example 2026-11-21T06:49:03.120Z
             */
            resets_at: string | null;
        } | null;
        LedgerEntry: {
            /** @example led_5nmW1ZxbJ2pH2QbqNs1QfT */
            id: string;
            /** @enum {string} */
            kind: "GRANT" | "RESERVE" | "CHARGE" | "RELEASE" | "DEDUCT";
            amount: number;
            balance_delta: number;
            reserved_delta: number;
            /** @example run_4ReEbWIXuDXbjwlguHgMmo */
            run_id: string | null;
            note: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
        };
        ListedApiKey: {
            /** @example key_0gTfH5M8l3n9sYx2ZpQb4c */
            id: string;
            name: string;
            /** @enum {string} */
            mode: "live" | "test";
            /** @description The key's first characters; never enough to use it */
            prefix: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            last_used_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            revoked_at: string | null;
            /**
             * Format: date-time
             * @description After it, the key answers 401; null: never
             * @example 2026-11-21T06:49:03.120Z
             */
            expires_at: string | null;
            /** @description The only models the key may run; null: every model */
            allowed_models: string[] | null;
            /** @description The key's spend budget; null: none */
            budget: {
                /** @description At most this many tokens per period */
                tokens: number;
                /**
                 * @description A UTC day, a UTC month, or the key's whole life
                 * @enum {string}
                 */
                period: "day" | "month" | "total";
                /** @description Reserved (runs in flight) or charged by the key's live runs created in the current period */
                used: number;
                remaining: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                period_start: string;
                /**
                 * Format: date-time
                 * @description When the budget is whole again; null for total
                 * @example 2026-11-21T06:49:03.120Z
                 */
                resets_at: string | null;
            } | null;
            /** @description Runs of the key executing at once on limited models; null: the account's limit only */
            max_concurrent_runs: number | null;
            /** @description Tokens charged to the key's runs since the start of the UTC day and month */
            spend: {
                today: number;
                this_month: number;
            };
        };
        ApiKey: {
            /** @example key_0gTfH5M8l3n9sYx2ZpQb4c */
            id: string;
            name: string;
            /** @enum {string} */
            mode: "live" | "test";
            /** @description The key's first characters; never enough to use it */
            prefix: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            last_used_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            revoked_at: string | null;
            /**
             * Format: date-time
             * @description After it, the key answers 401; null: never
             * @example 2026-11-21T06:49:03.120Z
             */
            expires_at: string | null;
            /** @description The only models the key may run; null: every model */
            allowed_models: string[] | null;
            /** @description The key's spend budget; null: none */
            budget: {
                /** @description At most this many tokens per period */
                tokens: number;
                /**
                 * @description A UTC day, a UTC month, or the key's whole life
                 * @enum {string}
                 */
                period: "day" | "month" | "total";
                /** @description Reserved (runs in flight) or charged by the key's live runs created in the current period */
                used: number;
                remaining: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                period_start: string;
                /**
                 * Format: date-time
                 * @description When the budget is whole again; null for total
                 * @example 2026-11-21T06:49:03.120Z
                 */
                resets_at: string | null;
            } | null;
            /** @description Runs of the key executing at once on limited models; null: the account's limit only */
            max_concurrent_runs: number | null;
        };
        AuditEntry: {
            id: string;
            actor_email: string;
            action: string;
            account_id: string | null;
            target_id: string;
            before?: unknown;
            after?: unknown;
            reason: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
        };
        OperatorAccount: {
            id: string;
            name: string;
            balance: number;
            reserved: number;
            available: number;
            weight: number;
            /** @description null: ACCOUNT_MAX_CONCURRENT_RUNS */
            max_concurrent_runs: number | null;
            low_balance_threshold: number | null;
            people: number;
            /** @description Tokens charged in the last 30 days */
            charged_30d: number;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
        };
        Person: {
            id: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "member" | "operator";
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            last_sign_in_at: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T06:49:03.120Z
             */
            disabled_at: string | null;
        };
        OperatorModel: {
            id: string;
            name: string;
            category: string;
            status: string;
            unit: string;
            tokens_per_unit: number;
            /** @enum {string} */
            runner: "builtin" | "cog" | "openai" | "comfyui";
            /** @description A model server kind's servers (Cog, OpenAI-style); [] for built-in generators */
            servers: string[];
            /** @description Runs at once per server */
            concurrency: number | null;
            max_queue: number | null;
            /** @description Its pool now (models of limited capacity); null while Redis is away or for unlimited models */
            queue: {
                capacity: number;
                in_flight: number;
                queue_length: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T06:49:03.120Z
                 */
                oldest_queued_at: string | null;
                servers_down: string[];
                /** @description Each server as its last health check found it; a down one's state in its own words (Cog: STARTING, SETUP_FAILED, DEFUNCT, UNHEALTHY; HTTP 503; no answer) */
                servers: {
                    url: string;
                    up: boolean;
                    state: string;
                }[];
            } | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
