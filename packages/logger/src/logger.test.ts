import { PassThrough } from "node:stream";
import { createLogger, redactSecrets } from "./index.js";

function capture() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
  });
  return { stream, lines };
}

describe("logger", () => {
  it("when a line is logged with context, then it is one JSON object with that context", async () => {
    const { stream, lines } = capture();
    createLogger({ service: "api", level: "info", stream }).info("request finished", {
      request_id: "req_1",
      status: 200,
    });
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({
      level: "info",
      service: "api",
      message: "request finished",
      request_id: "req_1",
      status: 200,
    });
    expect(lines[0]).toHaveProperty("timestamp");
  });

  it("when an API key or secret appears anywhere in a line, then it is redacted", async () => {
    const { stream, lines } = capture();
    const key = "svc_live_" + "A".repeat(43);
    createLogger({ service: "api", level: "info", stream }).warn(`bad key ${key}`, {
      headers: { authorization: `Bearer ${key}` },
      nested: { note: "whsec_abcDEF123+/=" },
    });
    await new Promise((r) => setImmediate(r));
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain("A".repeat(43));
    expect(text).not.toContain("abcDEF123");
    expect(text).toContain("svc_live_[redacted]");
  });

  it("when the level is silent, then nothing is written", async () => {
    const { stream, lines } = capture();
    createLogger({ service: "api", level: "silent", stream }).error("boom");
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(0);
  });

  it("when redacting plain text, then the key prefix stays for debugging", () => {
    expect(redactSecrets("svc_test_abc")).toBe("svc_test_[redacted]");
  });
});
