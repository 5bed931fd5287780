import { contentPolicyOutcome, decideAttempt } from "./outcome.js";

// What a run becomes after an attempt to execute it, whichever way it was executed.
describe("run outcome", () => {
  it("when the prompt holds a blocked term, then the run fails with CONTENT_POLICY before anything runs", () => {
    expect(contentPolicyOutcome({ prompt: "a Forbidden   thing" }, ["forbidden"])).toMatchObject({
      to: "FAILED",
      errorCode: "CONTENT_POLICY",
    });
    expect(contentPolicyOutcome({ prompt: "a fine thing" }, ["forbidden"])).toBeNull();
    expect(contentPolicyOutcome({ steps: 3 }, ["forbidden"])).toBeNull();
  });

  it("when the worker broke on an attempt that is not the last, then the job is retried; on the last, the run fails INTERNAL_ERROR", () => {
    expect(decideAttempt({ kind: "broke", lastAttempt: false })).toEqual({ retry: true });
    expect(decideAttempt({ kind: "broke", lastAttempt: true })).toEqual({
      settle: { to: "FAILED", errorCode: "INTERNAL_ERROR", errorMessage: "The run could not be executed." },
    });
  });

  it("when the model failed, timed out or produced, then the run is settled so; a client's cancel leaves nothing to settle", () => {
    expect(decideAttempt({ kind: "model_failed", code: "MODEL_ERROR", message: "out of memory" })).toEqual({
      settle: { to: "FAILED", errorCode: "MODEL_ERROR", errorMessage: "out of memory" },
    });
    expect(decideAttempt({ kind: "timed_out" })).toEqual({ settle: { to: "TIMEOUT" } });
    expect(decideAttempt({ kind: "produced", output: { images: [] }, units: 0 })).toEqual({
      settle: { to: "COMPLETED", output: { images: [] }, units: 0 },
    });
    expect(decideAttempt({ kind: "canceled" })).toEqual({ settle: null });
    expect(decideAttempt({ kind: "canceled_by_model" })).toEqual({ canceledByModel: true });
  });
});
