// Making a batch from a request, shared by our batches route and OpenAI's (issue #61): the model
// the caller may run, each line checked as a run's input is (prepareRunInput), and a test batch's
// lines taken from the day's test runs. Each API style only says where the lines come from.
import { ApiError, costsCompute, type ParsedBatchLine } from "@svc/core";
import type { Batch } from "@svc/db";
import { createBatch, type NewBatchSpec } from "@svc/use-cases";
import { authOf, ownerOf } from "../auth/authenticate.js";
import type { RouteContext } from "../http/route.js";
import { checkWebhookUrl } from "../webhooks/checkUrl.js";
import { prepareRunInput, testRuns, type RunnableModel } from "./startRun.js";

/**
 * A test batch of a model that costs compute takes its lines from the day's test runs at once
 * (429 TEST_RUN_QUOTA_EXCEEDED when they do not cover it), so that its items never fail midway on
 * the quota; the lines taken are not given back.
 */
async function takeTestRuns(ctx: RouteContext, model: RunnableModel, lines: number) {
  const auth = authOf(ctx.res);
  if (auth.mode !== "test" || !costsCompute(model.runner) || lines <= 0) return;
  const quota = testRuns(ctx.deps);
  const { limit, used } = await quota.allowance(auth.accountId);
  if (lines > limit - used)
    throw new ApiError(
      "TEST_RUN_QUOTA_EXCEEDED",
      `This test batch has ${lines} lines; ${Math.max(0, limit - used)} of the day's ${limit} test runs (TEST_RUNS_PER_DAY) are left.`,
    );
  for (let i = 0; i < lines; i++) await quota.take(auth.accountId);
}

export interface BatchRequest {
  model: RunnableModel;
  api: NewBatchSpec["api"];
  endpoint?: string;
  inputFileId?: string;
  webhookUrl?: string;
  metadata?: Record<string, string>;
  paramOf?: (path: string) => string;
}

/** A batch of `lines` for the caller: every line stored (an item or an error line), then open. */
export async function makeBatch(
  ctx: RouteContext,
  request: BatchRequest,
  lines: AsyncIterable<ParsedBatchLine>,
): Promise<Batch> {
  const { deps, res } = ctx;
  const auth = authOf(res);
  const { model } = request;
  if (model.status !== "active")
    throw new ApiError("MODEL_NOT_ACTIVE", `${model.id} is ${model.status}: it takes no batches.`);
  if (request.webhookUrl)
    await checkWebhookUrl(request.webhookUrl, "webhook_url", deps.settings.WEBHOOK_ALLOW_PRIVATE_URLS);
  const owner = { accountId: auth.accountId, mode: auth.mode, apiKeyId: auth.keyId! };
  const batch = await createBatch(
    deps.db,
    ownerOf(res),
    {
      apiKeyId: auth.keyId!,
      modelId: model.id,
      api: request.api,
      endpoint: request.endpoint ?? null,
      inputFileId: request.inputFileId ?? null,
      webhookUrl: request.webhookUrl ?? null,
      metadata: request.metadata ?? null,
      discountPercent: model.pricing.batch_discount_percent ?? deps.settings.BATCH_DISCOUNT_PERCENT,
      ...(request.paramOf && { paramOf: request.paramOf }),
    },
    lines,
    (input) => prepareRunInput(deps, owner, model, input),
  );
  await takeTestRuns(ctx, model, batch.total - batch.invalid).catch(async (error: unknown) => {
    await deps.db.batch.delete({ where: { id: batch.id } });
    throw error;
  });
  return batch;
}
