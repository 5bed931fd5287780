import { canonicalJson } from "./canonicalJson.js";
import { blockedTerm } from "./contentPolicy.js";
import { cancelDecision, isTerminal, presentCreatedRun, presentRun, type RunRecord } from "./runs.js";

const run: RunRecord = {
  id: "run_1",
  status: "QUEUED",
  modelId: "acme/pixel-hq",
  mode: "live",
  estimatedTokens: 10,
  tokensCharged: null,
  output: null,
  errorCode: null,
  errorMessage: null,
  createdAt: new Date("2026-11-21T06:49:03.120Z"),
  startedAt: null,
  completedAt: null,
  canceledAt: null,
};

describe("run presentation", () => {
  it("when a run is created, then the status is lower-case queued with the spec's fields", () => {
    expect(presentCreatedRun({ ...run, mode: "test" }, "Pixel HQ")).toEqual({
      run_id: "run_1",
      status: "queued",
      model_id: "acme/pixel-hq",
      model_name: "Pixel HQ",
      estimated_tokens: 10,
      is_test_request: true,
      created_at: "2026-11-21T06:49:03.120Z",
    });
  });

  it("when a run is queued, then started_at is absent; once executing, it is present", () => {
    expect(presentRun(run)).toEqual({
      run_id: "run_1",
      status: "QUEUED",
      model_id: "acme/pixel-hq",
      created_at: "2026-11-21T06:49:03.120Z",
    });
    const started = new Date("2026-11-21T06:49:04.000Z");
    expect(presentRun({ ...run, status: "EXECUTING", startedAt: started })).toMatchObject({
      started_at: "2026-11-21T06:49:04.000Z",
    });
  });

  it("when a run completed, then duration_ms is completed minus started", () => {
    const view = presentRun({
      ...run,
      status: "COMPLETED",
      startedAt: new Date("2026-11-21T06:49:04.000Z"),
      completedAt: new Date("2026-11-21T06:49:05.250Z"),
      tokensCharged: 10,
      output: { images: ["u"] },
    });
    expect(view).toEqual({
      run_id: "run_1",
      status: "COMPLETED",
      model_id: "acme/pixel-hq",
      output: { images: ["u"] },
      tokens_charged: 10,
      created_at: "2026-11-21T06:49:03.120Z",
      completed_at: "2026-11-21T06:49:05.250Z",
      duration_ms: 1250,
    });
  });

  it("when a run failed, then only run_id, status and error are shown", () => {
    expect(presentRun({ ...run, status: "FAILED", errorCode: "CONTENT_POLICY", errorMessage: "no" })).toEqual(
      {
        run_id: "run_1",
        status: "FAILED",
        error: { message: "no", code: "CONTENT_POLICY" },
      },
    );
  });
});

describe("run transitions", () => {
  it.each([
    ["QUEUED", "cancel"],
    ["EXECUTING", "cancel"],
    ["CANCELED", "already_canceled"],
    ["COMPLETED", "not_cancelable"],
    ["FAILED", "not_cancelable"],
  ] as const)("when canceling a %s run, then the decision is %s", (status, decision) => {
    expect(cancelDecision(status)).toBe(decision);
  });

  it("when a run is queued or executing, then it is not terminal", () => {
    expect(isTerminal("QUEUED")).toBe(false);
    expect(isTerminal("EXECUTING")).toBe(false);
    expect(isTerminal("CANCELED")).toBe(true);
  });
});

describe("content policy", () => {
  it.each([
    ["a photo of FORBIDDEN stuff", ["forbidden"], "forbidden"],
    ["bad-word, really", ["bad word"], "bad word"],
    ["unforbiddenly fine", ["forbidden"], null],
    ["anything", [], null],
    ["anything", ["  "], null],
  ])("when the prompt is %p and the list %p, then the match is %p", (prompt, list, match) => {
    expect(blockedTerm(prompt, list)).toBe(match);
  });
});

describe("canonicalJson", () => {
  it("when two objects differ only in key order, then their text is equal", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: "s" } })).toBe(
      canonicalJson({ a: { c: "s", d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: "1" }));
  });
});
