// SECRETS_KEY, parsed once per app for whatever it keys (sealed webhook and model-server secrets,
// signed input-file URLs, run-bound output tokens), and the account's signing secret as every API
// style gives it (our webhooks routes, Replicate's /webhooks/default/secret).
import { parseSecretsKey } from "@svc/core";
import { defaultSigningSecret as signingSecretOf } from "@svc/use-cases";
import { ownerOf } from "./auth/authenticate.js";
import { perApp, type RouteContext } from "./http/route.js";

export const secretsKey = perApp(({ settings }) => parseSecretsKey(settings.SECRETS_KEY));

/** The secret per-run webhooks of the caller's account and mode are signed with (made on first use). */
export const defaultSigningSecret = (ctx: RouteContext): Promise<string> =>
  signingSecretOf({ db: ctx.deps.db, secretsKey: secretsKey(ctx.deps) }, ownerOf(ctx.res));
