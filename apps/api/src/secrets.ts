// SECRETS_KEY, parsed once per app for whatever it keys (sealed webhook and model-server secrets,
// signed input-file URLs, run-bound output tokens), and the account's signing secret as every API
// style gives it (our webhooks routes, Replicate's /webhooks/default/secret).
import { generateSigningSecret, openSecret, parseSecretsKey, sealSecret } from "@svc/core";
import { defaultSecretEnc } from "@svc/db";
import { ownerOf } from "./auth/authenticate.js";
import { perApp, type RouteContext } from "./http/route.js";

export const secretsKey = perApp(({ settings }) => parseSecretsKey(settings.SECRETS_KEY));

/** The secret per-run webhooks of the caller's account and mode are signed with (made on first use). */
export async function defaultSigningSecret(ctx: RouteContext): Promise<string> {
  const key = secretsKey(ctx.deps);
  const sealed = await defaultSecretEnc(ctx.deps.db, ownerOf(ctx.res), () =>
    sealSecret(key, generateSigningSecret()),
  );
  return openSecret(key, sealed);
}
