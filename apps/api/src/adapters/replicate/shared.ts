// What the Replicate adapter's routes share.
import { z } from "zod";
import { ApiError, REPLICATE_PREFIX } from "@svc/core";
import { header } from "../../openapi/register.js";
import type { AppDeps } from "../../deps.js";

export const tags = ["Replicate"];
export const base = (deps: AppDeps) =>
  `${deps.settings.PUBLIC_BASE_URL.replace(/\/$/, "")}${REPLICATE_PREFIX}`;
export const byId = z.object({ id: z.string().meta({ example: "run_4ReEbWIXuDXbjwlguHgMmo" }) });
export const notFound = (id: string) =>
  new ApiError("RUN_NOT_FOUND", `No prediction with id ${JSON.stringify(id)}.`);

/** The tokens a prediction was charged (once ended), in a header as in every API style. */
export const TOKENS_HEADER = "X-Tokens-Charged";
export const tokensHeader = {
  [TOKENS_HEADER]: header("Tokens the run was charged, once it has ended (0 for test keys)", "5"),
};
