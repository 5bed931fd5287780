import {
  balanceLowTemplate,
  budgetReachedTemplate,
  endpointPayload,
  perRunPayload,
  startedTemplates,
  testPayload,
  type FinishedRun,
} from "@svc/core";
import { WEBHOOK_PAYLOADS, WebhookPayload } from "./responses.js";

// The document's webhook payloads against what packages/core actually sends, for each event and
// both targets (a run's own webhook_url, a registered endpoint).
describe("webhook payloads in the OpenAPI document", () => {
  const at = new Date("2026-11-23T04:00:00.000Z");
  const run = (status: string): FinishedRun => ({
    id: "run_4ReEbWIXuDXbjwlguHgMmo",
    modelId: "acme/pixel/fast",
    status,
    output: status === "COMPLETED" ? { images: ["https://x/files/out_a/0.png"] } : null,
    tokensCharged: status === "COMPLETED" ? 5 : 0,
    errorCode: status === "FAILED" ? "MODEL_ERROR" : null,
    errorMessage: status === "FAILED" ? "CUDA out of memory" : null,
    completedAt: status === "CANCELED" ? null : at,
    canceledAt: status === "CANCELED" ? at : null,
  });

  it.each([
    ["run.completed", "COMPLETED"],
    ["run.failed", "FAILED"],
    ["run.canceled", "CANCELED"],
  ] as const)("when %s is sent, then both of its bodies are what the document says", (event, status) => {
    for (const body of [perRunPayload(event, run(status)), endpointPayload(event, run(status), "wh_1", at)]) {
      expect(WEBHOOK_PAYLOADS[event].strict().parse(JSON.parse(JSON.stringify(body)))).toBeTruthy();
    }
  });

  it("when run.started and webhook.test are sent, then their bodies are what the document says", () => {
    const { perRun, endpoint, placeholders } = startedTemplates();
    const fill = (template: string) =>
      template
        .replaceAll(placeholders.runId, JSON.stringify("run_4ReEbWIXuDXbjwlguHgMmo"))
        .replaceAll(placeholders.modelId, JSON.stringify("acme/pixel/fast"))
        .replaceAll(placeholders.startedAt, JSON.stringify(at.toISOString()))
        .replaceAll(placeholders.webhookId, JSON.stringify("wh_1"));
    for (const body of [fill(perRun), fill(endpoint), JSON.stringify(testPayload("wh_1", at))])
      expect(WebhookPayload.parse(JSON.parse(body))).toBeTruthy();
  });

  it("when account.balance_low and key.budget_reached are recorded, then their bodies are what the document says", () => {
    const low = balanceLowTemplate();
    const lowBody = low.body
      .replaceAll(low.placeholders.webhookId, JSON.stringify("wh_1"))
      .replaceAll(low.placeholders.available, "45")
      .replaceAll(low.placeholders.threshold, "50")
      .replaceAll(low.placeholders.at, JSON.stringify(at.toISOString()));
    const reached = budgetReachedTemplate({
      keyId: "key_1",
      budgetTokens: 500,
      period: "day",
      usedTokens: 496,
      neededTokens: 5,
      resetsAt: new Date("2026-11-24T00:00:00.000Z"),
      at,
    });
    const reachedBody = reached.body
      .replaceAll(reached.placeholders.webhookId, JSON.stringify("wh_1"))
      .replaceAll(reached.placeholders.keyName, JSON.stringify("production"));
    expect(WEBHOOK_PAYLOADS["account.balance_low"].strict().parse(JSON.parse(lowBody)).data).toEqual({
      available_tokens: 45,
      threshold: 50,
      timestamp: at.toISOString(),
    });
    expect(WEBHOOK_PAYLOADS["key.budget_reached"].strict().parse(JSON.parse(reachedBody)).data.key_name).toBe(
      "production",
    );
  });

  it("when a body lacks what its event promises, then it does not pass", () => {
    expect(() =>
      WEBHOOK_PAYLOADS["run.failed"].parse({ event: "run.failed", data: { run_id: "run_x" } }),
    ).toThrow();
  });
});
