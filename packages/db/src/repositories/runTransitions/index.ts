// The run lifecycle's hot path: each transition of a whole batch of runs is one SQL statement over
// node-postgres (named, so prepared once per connection). No interactive transaction, no read-back:
// a busy account's row is locked for one statement per batch, and each statement returns what its
// caller needs. Rows are locked in id order (runs first, then accounts), so concurrent batches
// cannot deadlock. Per-run rules (charges, payload bodies, fallbacks) are the caller's.
export * from "./insert.js";
export * from "./start.js";
export * from "./settle.js";
export * from "./progress.js";
export * from "./priming.js";
