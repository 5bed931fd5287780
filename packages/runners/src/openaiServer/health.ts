// Whether an OpenAI-style media server takes runs: its model list answers (GET /v1/models, with
// the model's key when it has one). vLLM, SGLang and LocalAI each have a health route of their
// own; the model list is the one they all serve.
import { openSecret, type OpenAIServerSettings } from "@svc/core";
import type { ServerHealth } from "../registry.js";
import { probeServer } from "../servers.js";

/** The Authorization header of a model's requests, if its servers have a key. */
export const authorization = (s: OpenAIServerSettings, secretsKey?: Buffer): Record<string, string> =>
  s.api_key_enc && secretsKey ? { authorization: `Bearer ${openSecret(secretsKey, s.api_key_enc)}` } : {};

export async function openAIServerUp(
  s: OpenAIServerSettings,
  server: string,
  timeoutMs: number,
  secretsKey?: Buffer,
): Promise<ServerHealth> {
  const answer = await probeServer(server, "v1/models", timeoutMs, authorization(s, secretsKey));
  if (!answer) return { up: false, state: "no answer" };
  return answer.status === 200 ? { up: true, state: "READY" } : { up: false, state: `HTTP ${answer.status}` };
}
