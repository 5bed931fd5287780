// Records runs' events in Redis: each run's events in a capped stream of its own (what
// Last-Event-ID resumes from), announced on one channel that every API process subscribes to once
// (hub.ts). The same script (record.lua) keeps the index of waiting runs of unlimited models
// (queueIndex.ts) and the models' recent run times. One script call records a whole batch.
import { readFileSync } from "node:fs";
import { statusRank, type RecordedEvent, type RunEvent } from "@svc/core";
import type { RedisClient } from "../redis.js";
import { keys, NAMES } from "./keys.js";

export interface StoredEvent {
  /** The stream entry's id ("<ms>-<seq>"), the SSE event id. */
  id: string;
  event: RunEvent;
}

export interface RunEventSettings {
  /** How long an active run's events are kept after its last event, and an ended run's. */
  activeTtlMs: number;
  endedTtlMs: number;
}

/** Recent run times kept per model, and for all models together. */
const RUN_TIMES_PER_MODEL = 100;
const RUN_TIMES_ALL = 200;
const EVENTS_PER_RUN = 1_000;

const RECORD = [
  `local N = { ${Object.entries(NAMES)
    .map(([name, value]) => `${name} = '${value}'`)
    .join(", ")} }`,
  `local EVENTS_PER_RUN, RUN_TIMES_PER_MODEL, RUN_TIMES_ALL = ${EVENTS_PER_RUN}, ${RUN_TIMES_PER_MODEL}, ${RUN_TIMES_ALL}`,
  readFileSync(new URL("./record.lua", import.meta.url), "utf8"),
].join("\n");

type WithRecord = RedisClient & {
  svcRecordRunEvents(
    route: string,
    prefix: string,
    activeTtl: number,
    endedTtl: number,
    events: string,
  ): Promise<number>;
};

function withRecord(redis: RedisClient): WithRecord {
  if (!("svcRecordRunEvents" in redis))
    // KEYS[1] (the channel) only routes the script on Redis Cluster: every key it touches shares
    // the prefix's hash tag. The script reads the prefix from ARGV[1].
    redis.defineCommand("svcRecordRunEvents", { numberOfKeys: 1, lua: RECORD });
  return redis as WithRecord;
}

/** Records a batch of events in one round trip; the caller decides what a failure means. */
export function runEventRecorder(redis: RedisClient, prefix: string, settings: RunEventSettings) {
  const r = withRecord(redis);
  return async (events: readonly RecordedEvent[]): Promise<void> => {
    if (!events.length) return;
    const batch = events.map((e) => ({
      r: e.runId,
      m: e.modelId,
      d: JSON.stringify(e.event),
      ...(e.event.type === "status" && {
        s: e.event.status,
        x: statusRank(e.event.status) === 2 ? 1 : 0,
      }),
      ...(e.queuedAt !== undefined && { q: e.queuedAt }),
      ...(e.runMs !== undefined && { t: Math.max(0, Math.round(e.runMs)) }),
    }));
    await r.svcRecordRunEvents(
      keys(prefix).channel,
      prefix,
      settings.activeTtlMs,
      settings.endedTtlMs,
      JSON.stringify(batch),
    );
  };
}

export type RecordRunEvents = ReturnType<typeof runEventRecorder>;
