// Key names of the run events, the queue index of unlimited models, recent run times and worker
// heartbeats, under the queue prefix.

// The key names, once: keys() for the code here; record.lua gets them as N.
export const NAMES = {
  channel: ":run-events",
  stream: ":run-events:",
  queued: ":queued",
  runTimes: ":run-times",
  workers: ":workers",
} as const;

export const keys = (prefix: string) => ({
  channel: prefix + NAMES.channel,
  stream: (runId: string) => prefix + NAMES.stream + runId,
  queued: prefix + NAMES.queued,
  queuedOf: (modelId: string) => `${prefix}${NAMES.queued}:${modelId}`,
  runTimes: prefix + NAMES.runTimes,
  runTimesOf: (modelId: string) => `${prefix}${NAMES.runTimes}:${modelId}`,
  workers: prefix + NAMES.workers,
});
