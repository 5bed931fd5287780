import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { jest } from "@jest/globals";
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

  it("when a level below the logger's is called, then nothing of the line is made, in the logger or its children", async () => {
    const { stream, lines } = capture();
    const logger = createLogger({ service: "worker", level: "info", stream });
    let read = 0;
    // Context whose fields are read only if the line is formatted (redaction walks it, JSON writes it).
    const context = {
      get run_id() {
        read++;
        return "run_1";
      },
    };
    logger.debug("run dispatched", context);
    logger.child({ job_id: "1" }).debug("run dispatched", context);
    logger.info("run completed", context);
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => l.message)).toEqual(["run completed"]);
    expect(read).toBeGreaterThan(0);
    const whenInfo = read;
    logger.debug("run dispatched", context);
    expect(read).toBe(whenInfo);
    // A logger at debug still writes them.
    const verbose = capture();
    createLogger({ service: "worker", level: "debug", stream: verbose.stream }).debug("run dispatched", {
      run_id: "run_2",
    });
    await new Promise((r) => setImmediate(r));
    expect(verbose.lines).toMatchObject([{ level: "debug", message: "run dispatched", run_id: "run_2" }]);
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

  it("when an error is logged as context, then its message, stack, code and cause are in the line, with secrets redacted", async () => {
    const { stream, lines } = capture();
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const error = new Error(`settlement failed for svc_live_${"B".repeat(43)}`, { cause });
    createLogger({ service: "worker", level: "info", stream }).error("run failed", {
      run_id: "run_1",
      error,
    });
    await new Promise((r) => setImmediate(r));
    const logged = lines[0]!.error as Record<string, unknown>;
    expect(logged).toMatchObject({
      name: "Error",
      message: "settlement failed for svc_live_[redacted]",
      cause: { message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" },
    });
    expect(logged.stack).toEqual(expect.stringContaining("logger.test"));
    expect(JSON.stringify(lines[0])).not.toContain("B".repeat(43));
  });

  it("when an error carries raw bytes (an HTTP parser's packet), then the line says how many, never the bytes", async () => {
    const { stream, lines } = capture();
    const packet = Buffer.from(
      `GET / HTTP/1.1\r\nAuthorization: Bearer svc_live_${"C".repeat(43)}\r\n\r\nxx`,
    );
    const error = Object.assign(new Error("Parse Error: Invalid method encountered"), {
      code: "HPE_INVALID_METHOD",
      rawPacket: packet,
    });
    createLogger({ service: "api", level: "info", stream }).error("request failed", {
      error,
      body: new Uint8Array(3),
    });
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({
      error: { code: "HPE_INVALID_METHOD", rawPacket: `[${packet.length} bytes]` },
      body: "[3 bytes]",
    });
  });

  it.each([
    [
      "a promise rejection goes unhandled",
      'Promise.reject(new Error("boom"))',
      "unhandled promise rejection",
    ],
    [
      "an exception is thrown from a callback",
      'setTimeout(() => { throw new Error("boom"); }, 0)',
      "uncaught exception",
    ],
  ])(
    "when %s in a process with exitOnFatalErrors, then it is logged with its stack and the process exits 1",
    async (_what, fault, message) => {
      const dist = new URL("../dist/index.js", import.meta.url).href;
      const script = `import { createLogger, exitOnFatalErrors } from ${JSON.stringify(dist)};
      exitOnFatalErrors(createLogger({ service: "t", level: "info" }));
      setInterval(() => {}, 1000); // what a listening server does: keep the process alive
      ${fault};`;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise((resolve) => child.on("exit", resolve));
      expect(code).toBe(1);
      const line = JSON.parse(out.trim().split("\n")[0]!);
      expect(line).toMatchObject({
        level: "error",
        message: expect.stringContaining(message),
        error: { message: "boom" },
      });
      expect(line.error.stack).toContain("Error: boom");
    },
  );

  it("when the level is silent, then nothing is written", async () => {
    const { stream, lines } = capture();
    createLogger({ service: "api", level: "silent", stream }).error("boom");
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(0);
  });

  it("when redacting plain text, then the key prefix stays for debugging", () => {
    expect(redactSecrets("svc_test_abc")).toBe("svc_test_[redacted]");
  });

  it("when an output URL's token is in a line, then it is redacted (the URL is a credential)", () => {
    expect(redactSecrets("/files/out_4ReEbWIXuDXbjwlguHgMmo/0.png")).toBe("/files/out_[redacted]/0.png");
    expect(redactSecrets("out_short stays")).toBe("out_short stays");
  });

  describe("repeated warnings and errors", () => {
    afterEach(() => jest.useRealTimers());

    it("when one error repeats, then it is logged `lines` times per window and the next window says how many were left out", async () => {
      jest.useFakeTimers({ now: 1_000_000, doNotFake: ["setImmediate", "nextTick"] });
      const { stream, lines } = capture();
      const logger = createLogger({
        service: "worker",
        level: "info",
        stream,
        repeatLimit: { lines: 3, windowMs: 30_000 },
      });
      // The slot number differs from one MOVED to the next: still one kind.
      for (let slot = 0; slot < 500; slot++)
        logger.error("runs worker error", { error: new Error(`MOVED ${slot} 127.0.0.1:7102`) });
      logger.warn("run sweep failed", { error: new Error("connect ECONNREFUSED") });
      logger.info("not limited");
      logger.info("not limited");
      await new Promise((r) => setImmediate(r));
      expect(lines.map((l) => l.message)).toEqual([
        "runs worker error",
        "runs worker error",
        "runs worker error",
        "run sweep failed",
        "not limited",
        "not limited",
      ]);
      jest.setSystemTime(1_000_000 + 30_000);
      logger.error("runs worker error", { error: new Error("MOVED 9 127.0.0.1:7102") });
      await new Promise((r) => setImmediate(r));
      expect(lines.at(-1)).toMatchObject({ message: "runs worker error", repeated: 497 });
    });

    it("when a Redis error carries its command's arguments, then only the command's name is logged", async () => {
      const { stream, lines } = capture();
      const error = Object.assign(new Error("MOVED 1 127.0.0.1:7102"), {
        name: "ReplyError",
        command: { name: "evalsha", args: ["sha", "1", '{"input":{"prompt":"private"}}'] },
      });
      createLogger({ service: "worker", level: "info", stream }).error("runs worker error", { error });
      await new Promise((r) => setImmediate(r));
      expect(lines[0]).toMatchObject({ error: { message: error.message, command: { name: "evalsha" } } });
      expect(JSON.stringify(lines[0])).not.toContain("private");
    });
  });
});
