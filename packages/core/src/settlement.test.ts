import { planSettlement } from "./settlement.js";
import { endpointPayload, perRunPayload } from "./webhooks/events.js";

const run = { id: "run_1", modelId: "acme/pixel-hq", reservedTokens: 10 };
const at = new Date("2026-11-22T08:00:00.123Z");

describe("planSettlement", () => {
  it("when a run completes, then it is charged what it produced and the rest is released", () => {
    const plan = planSettlement(
      run,
      ["EXECUTING"],
      { to: "COMPLETED", output: { images: ["u"] }, unitsCompleted: 1, charge: 5 },
      at,
    );
    expect(plan.charge).toEqual({ amount: 5, balanceDelta: -5, reservedDelta: -5 });
    expect(plan.release).toEqual({ amount: 5, balanceDelta: 0, reservedDelta: -5 });
    expect(plan.tokensCharged).toBe(5);
    expect(plan.event).toBe("run.completed");
  });

  it("when a charge exceeds the reservation or a run fails, then the charge stays within 0..reserved", () => {
    const over = planSettlement(run, ["EXECUTING"], { to: "CANCELED", unitsDelivered: 3, charge: 99 }, at);
    expect(over.charge.amount).toBe(10);
    expect(over.release.amount).toBe(0);
    expect(over.expectedUnitsCompleted).toBe(3);
    const failed = planSettlement(
      run,
      ["EXECUTING"],
      { to: "FAILED", errorCode: "TIMEOUT", errorMessage: "late" },
      at,
    );
    expect(failed.charge.amount).toBe(0);
    expect(failed.release.amount).toBe(10);
  });

  it("when an endpoint id is put between head and tail, then the body is exactly the endpoint payload", () => {
    // An output that contains the marker text must not move the cut.
    const output = { text: '"webhook_id":""', images: ["https://x/0.png"] };
    const plan = planSettlement(
      run,
      ["EXECUTING"],
      { to: "COMPLETED", output, unitsCompleted: 2, charge: 10 },
      at,
    );
    const finished = {
      id: "run_1",
      modelId: "acme/pixel-hq",
      status: "COMPLETED",
      output,
      tokensCharged: 10,
      errorCode: null,
      errorMessage: null,
      completedAt: at,
      canceledAt: null,
    };
    expect(plan.endpointHead + JSON.stringify("wh_abc") + plan.endpointTail).toBe(
      JSON.stringify(endpointPayload("run.completed", finished, "wh_abc", at)),
    );
    expect(plan.runBody).toBe(JSON.stringify(perRunPayload("run.completed", finished)));
  });

  it("when a run is canceled, then endpoints get run.canceled (its own webhook_url only if its filter asks)", () => {
    const plan = planSettlement(
      run,
      ["QUEUED", "EXECUTING"],
      { to: "CANCELED", unitsDelivered: 0, charge: 0 },
      at,
    );
    expect(JSON.parse(plan.runBody).event).toBe("run.canceled");
    expect(plan.errorCode).toBeUndefined();
    const body = JSON.parse(plan.endpointHead + '"wh_1"' + plan.endpointTail);
    expect(body).toMatchObject({
      event: "run.canceled",
      webhook_id: "wh_1",
      data: { canceled_at: at.toISOString(), tokens_charged: 0 },
    });
  });

  it("when a deadline cancels a run, then the reason is recorded with it", () => {
    const reason = { code: "CANCEL_AFTER", message: "Canceled by its Cancel-After deadline (30s)." };
    const plan = planSettlement(
      run,
      ["QUEUED", "EXECUTING"],
      { to: "CANCELED", unitsDelivered: 0, charge: 0, reason },
      at,
    );
    expect([plan.errorCode, plan.errorMessage]).toEqual([reason.code, reason.message]);
  });
});
