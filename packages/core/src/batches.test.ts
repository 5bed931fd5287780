import {
  batchCountsOf,
  batchFeed,
  batchResultLine,
  batchTokens,
  nextBatchStatus,
  parseBatchLine,
  shareBatchRoom,
  type BatchCounts,
} from "./batches.js";

describe("batches", () => {
  it("when an item is priced, then the discount comes off and the rest is rounded up to a whole token", () => {
    expect(batchTokens(10, 50)).toBe(5);
    expect(batchTokens(3, 50)).toBe(2);
    expect(batchTokens(1, 50)).toBe(1);
    expect(batchTokens(7, 0)).toBe(7);
    expect(batchTokens(7, 100)).toBe(0);
  });

  it("when lines are read, then a bad one says why and where, never throws", () => {
    expect(parseBatchLine('{"custom_id":"a","input":{"prompt":"x"}}')).toEqual({
      ok: true,
      customId: "a",
      input: { prompt: "x" },
    });
    expect(parseBatchLine('{"input":{}}')).toEqual({ ok: true, customId: null, input: {} });
    expect(parseBatchLine("{nope")).toMatchObject({
      ok: false,
      error: { code: "invalid_json", param: null },
    });
    expect(parseBatchLine("[1]")).toMatchObject({ ok: false, error: { code: "invalid_item" } });
    expect(parseBatchLine('{"custom_id":"b","input":"x"}')).toMatchObject({
      ok: false,
      customId: "b",
      error: { param: "input" },
    });
    expect(parseBatchLine(`{"custom_id":"${"c".repeat(201)}","input":{}}`)).toMatchObject({
      ok: false,
      error: { param: "custom_id" },
    });
  });

  it("when a feed pass asks for room, then it is the batches' share of the places (at least one) busy and two intervals' worth waiting, refilled sooner below one", () => {
    const f = {
      capacity: 8,
      inFlight: 0,
      share: 0.5,
      unlimited: 32,
      heldMs: null,
      intervalMs: 250,
    };
    // Hold unknown: one item per place each interval.
    expect(batchFeed(f)).toEqual({ room: 12, refillBelow: 8 });
    expect(batchFeed({ ...f, inFlight: 11 })).toEqual({ room: 1, refillBelow: 8 });
    expect(batchFeed({ ...f, inFlight: 13 }).room).toBe(0);
    expect(batchFeed({ ...f, capacity: 1, share: 0.1 })).toEqual({ room: 3, refillBelow: 2 });
    // Runs of 50 ms, a pass every 250 ms: 4 places busy, 5 items each per interval.
    expect(batchFeed({ ...f, heldMs: 50 })).toEqual({ room: 44, refillBelow: 24 });
    expect(batchFeed({ ...f, heldMs: 60_000 })).toEqual({ room: 12, refillBelow: 8 });
    // A model that needs no places: `unlimited` in flight, every end refilling it.
    expect(batchFeed({ ...f, capacity: null, inFlight: 30 })).toEqual({ room: 2, refillBelow: 32 });
    expect(batchFeed({ ...f, capacity: 0 })).toEqual({ room: 0, refillBelow: 0 });
  });

  it("when room is shared, then accounts take turns one item at a time, each account's oldest batch first", () => {
    const shared = shareBatchRoom(
      [
        { id: "big", accountId: "a", pending: 1000 },
        { id: "later", accountId: "a", pending: 5 },
        { id: "small", accountId: "b", pending: 2 },
      ],
      7,
    );
    expect(Object.fromEntries(shared)).toEqual({ big: 5, small: 2 });
    expect(Object.fromEntries(shareBatchRoom([{ id: "x", accountId: "a", pending: 1 }], 5))).toEqual({
      x: 1,
    });
  });

  it("when a batch's items have all ended, then it finalizes and completes; a cancel ends when its admitted items have", () => {
    const counts: BatchCounts = {
      total: 3,
      pending: 0,
      running: 0,
      completed: 2,
      failed: 1,
      tokensCharged: 4,
    };
    expect(nextBatchStatus("in_progress", counts)).toBe("finalizing");
    expect(nextBatchStatus("finalizing", counts)).toBe("completed");
    expect(nextBatchStatus("canceling", counts)).toBe("canceled");
    expect(nextBatchStatus("in_progress", { ...counts, running: 1 })).toBeNull();
    expect(nextBatchStatus("canceling", { ...counts, pending: 1 })).toBeNull();
    expect(nextBatchStatus("completed", counts)).toBeNull();
  });

  it("when a batch's tally is read, then its lines are counted by where they stand and add up to the total", () => {
    const tally = {
      total: 10,
      invalid: 1,
      admitted: 6,
      dropped: 0,
      runsCompleted: 3,
      runsFailed: 1,
      tokensCharged: 7,
    };
    expect(batchCountsOf(tally)).toEqual({
      total: 10,
      pending: 3,
      running: 2,
      completed: 3,
      failed: 2,
      tokensCharged: 7,
    });
    // Canceled: the 3 waiting lines dropped, the 2 running runs canceled.
    expect(batchCountsOf({ ...tally, dropped: 3, runsFailed: 3 })).toEqual({
      total: 10,
      pending: 0,
      running: 0,
      completed: 3,
      failed: 7,
      tokensCharged: 7,
    });
  });

  it("when a run ends before its line is marked admitted, then the line is counted once, by its run", () => {
    const sum = (c: BatchCounts) => c.pending + c.running + c.completed + c.failed;
    const none = { invalid: 0, admitted: 0, dropped: 0, runsCompleted: 0, runsFailed: 0, tokensCharged: 0 };
    // Two lines waiting; the first one's run made and completed before the pass marked it.
    const early = batchCountsOf({ ...none, total: 2, runsCompleted: 1, tokensCharged: 1 });
    expect(early).toMatchObject({ pending: 1, running: 0, completed: 1, failed: 0 });
    // Both runs ended, the second line still unmarked: nothing is left running or waiting.
    const ended = batchCountsOf({ ...none, total: 2, admitted: 1, runsCompleted: 2, tokensCharged: 2 });
    expect(ended).toMatchObject({ pending: 0, running: 0, completed: 2, failed: 0 });
    // A cancel dropped a line whose run was being made; the run was canceled before the pass
    // admitted the line to it: one failure, not two.
    const canceled = batchCountsOf({ ...none, total: 1, dropped: 1, runsFailed: 1 });
    expect(canceled).toMatchObject({ pending: 0, running: 0, completed: 0, failed: 1 });
    for (const c of [early, ended, canceled]) expect(sum(c)).toBe(c.total);
  });

  it("when results are read, then each ended item is one line: its run's output or error, or why it never ran", () => {
    const run = {
      id: "run_1",
      output: { images: ["u"] },
      errorCode: null,
      errorMessage: null,
      tokensCharged: 5,
    };
    expect(
      batchResultLine({
        line: 1,
        customId: "a",
        state: "admitted",
        error: null,
        run: { ...run, status: "COMPLETED" },
      }),
    ).toEqual({
      line: 1,
      custom_id: "a",
      run_id: "run_1",
      status: "completed",
      output: { images: ["u"] },
      error: null,
      tokens_charged: 5,
    });
    expect(
      batchResultLine({
        line: 2,
        customId: null,
        state: "admitted",
        error: null,
        run: { ...run, status: "EXECUTING" },
      }),
    ).toBeNull();
    expect(batchResultLine({ line: 3, customId: null, state: "pending", error: null, run: null })).toBeNull();
    const invalid = { code: "invalid_json", message: "no", param: null };
    expect(
      batchResultLine({ line: 4, customId: null, state: "invalid", error: invalid, run: null }),
    ).toMatchObject({
      status: "invalid",
      run_id: null,
      error: invalid,
      tokens_charged: 0,
    });
    expect(
      batchResultLine({ line: 5, customId: "e", state: "expired", error: invalid, run: null }),
    ).toMatchObject({
      status: "expired",
    });
    expect(
      batchResultLine({
        line: 6,
        customId: null,
        state: "admitted",
        error: null,
        run: { ...run, status: "FAILED", errorCode: "TIMEOUT", errorMessage: "slow", tokensCharged: 0 },
      }),
    ).toMatchObject({ status: "failed", error: { code: "TIMEOUT", message: "slow" } });
  });
});
