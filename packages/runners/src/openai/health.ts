// Whether an OpenAI-style media server takes runs: its model list answers (GET /v1/models, with
// the model's key when it has one). vLLM, SGLang and LocalAI each have a health route of their
// own; the model list is the one they all serve.
import { openSecret, type OpenAIServerSettings } from "@svc/core";
import type { ServerHealth } from "../registry.js";

/** The Authorization header of a model's requests, if its servers have a key. */
export const authorization = (s: OpenAIServerSettings, secretsKey?: Buffer): Record<string, string> =>
  s.api_key_enc && secretsKey ? { authorization: `Bearer ${openSecret(secretsKey, s.api_key_enc)}` } : {};

export async function openAIServerUp(
  s: OpenAIServerSettings,
  server: string,
  timeoutMs: number,
  secretsKey?: Buffer,
): Promise<ServerHealth> {
  try {
    const res = await fetch(new URL("v1/models", `${server}/`), {
      headers: authorization(s, secretsKey),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return res.status === 200 ? { up: true, state: "READY" } : { up: false, state: `HTTP ${res.status}` };
  } catch {
    return { up: false, state: "no answer" };
  }
}
