import { verify as verifyGithubStyle } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { openSecret, parseSecretsKey, sealSecret } from "../secretBox.js";
import { isInternalAddress } from "../addresses.js";
import { classifyTransportError, isDeliverySuccess, retryDelay } from "./delivery.js";
import {
  endpointPayload,
  eventForStatus,
  perRunPayload,
  startedBodies,
  startedTemplates,
  type FinishedRun,
} from "./events.js";
import { generateSigningSecret, serviceSignature, signDelivery, standardSignature } from "./signatures.js";

describe("X-Service-Signature", () => {
  it("when signing GitHub's documented example, then the golden value comes out", () => {
    expect(serviceSignature("It's a Secret to Everybody", "Hello, World!")).toBe(
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    );
  });

  it("when a delivery is signed, then an independent implementation verifies it and rejects a tampered body", async () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ event: "run.completed", data: { run_id: "run_1" } });
    const headers = signDelivery({
      secrets: [secret],
      deliveryId: "whd_1",
      event: "run.completed",
      body,
      at: new Date(),
    });
    expect(await verifyGithubStyle(secret, body, headers["x-service-signature"])).toBe(true);
    expect(
      await verifyGithubStyle(secret, body.replace("run_1", "run_2"), headers["x-service-signature"]),
    ).toBe(false);
    expect(await verifyGithubStyle(generateSigningSecret(), body, headers["x-service-signature"])).toBe(
      false,
    );
  });
});

describe("Standard Webhooks signature", () => {
  it("when a delivery is signed, then the standardwebhooks library verifies it and rejects tampering", () => {
    const secret = generateSigningSecret();
    const body = '{"event":"run.failed"}';
    const headers = signDelivery({
      secrets: [secret],
      deliveryId: "whd_2",
      event: "run.failed",
      body,
      at: new Date(),
    });
    const receiver = new Webhook(secret);
    expect(receiver.verify(body, headers)).toEqual({ event: "run.failed" });
    expect(() => receiver.verify('{"event":"run.completed"}', headers)).toThrow();
    expect(() => receiver.verify(body, { ...headers, "webhook-id": "whd_other" })).toThrow();
  });

  it("when the timestamp is old, then a standard receiver rejects the replay", () => {
    const secret = generateSigningSecret();
    const body = "{}";
    const headers = signDelivery({
      secrets: [secret],
      deliveryId: "whd_3",
      event: "x",
      body,
      at: new Date(Date.now() - 3600_000),
    });
    expect(() => new Webhook(secret).verify(body, headers)).toThrow();
  });

  it("when a secret is rotated, then both the new and the previous secret verify the same delivery", async () => {
    const [next, previous] = [generateSigningSecret(), generateSigningSecret()];
    const body = '{"a":1}';
    const headers = signDelivery({
      secrets: [next, previous],
      deliveryId: "whd_4",
      event: "x",
      body,
      at: new Date(),
    });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(next).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(await verifyGithubStyle(next, body, headers["x-service-signature"])).toBe(true);
    expect(await verifyGithubStyle(previous, body, headers["x-service-signature-previous"]!)).toBe(true);
  });

  it("when the key is derived, then it is the base64-decoded part after whsec_", () => {
    const a = standardSignature(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
    expect(a).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });
});

describe("signing secrets", () => {
  it("when a secret is made, then it is whsec_ and 32 random bytes in base64", () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it("when sealed and opened with the same key, then the secret comes back; another key or a changed byte fails", () => {
    const key = parseSecretsKey(Buffer.alloc(32, 7).toString("base64"));
    const sealed = sealSecret(key, "whsec_abc");
    expect(sealed).not.toContain("whsec_abc");
    expect(openSecret(key, sealed)).toBe("whsec_abc");
    expect(() => openSecret(parseSecretsKey(Buffer.alloc(32, 8).toString("base64")), sealed)).toThrow();
    const [v, iv, tag, data] = sealed.split(".");
    expect(() =>
      openSecret(key, [v, iv, tag, data!.slice(0, -2) + (data!.endsWith("A") ? "BA" : "AA")].join(".")),
    ).toThrow();
    expect(() => parseSecretsKey("c2hvcnQ=")).toThrow(/32 bytes/);
  });
});

describe("payloads", () => {
  const run: FinishedRun = {
    id: "run_1",
    modelId: "acme/pixel-hq",
    status: "COMPLETED",
    output: { images: ["https://x/0.png"] },
    tokensCharged: 5,
    errorCode: null,
    errorMessage: null,
    completedAt: new Date("2026-11-21T07:00:00.000Z"),
    canceledAt: null,
  };

  it("when a run completes, then the per-run payload is exactly the spec's shape", () => {
    expect(perRunPayload("run.completed", run)).toEqual({
      event: "run.completed",
      data: {
        run_id: "run_1",
        model_id: "acme/pixel-hq",
        result: { images: ["https://x/0.png"] },
        tokens_charged: 5,
      },
    });
  });

  it("when a run completes, then the endpoint payload adds webhook_id, data.timestamp and created_at", () => {
    expect(endpointPayload("run.completed", run, "wh_1", new Date("2026-11-21T07:00:01.000Z"))).toEqual({
      event: "run.completed",
      webhook_id: "wh_1",
      data: {
        run_id: "run_1",
        model_id: "acme/pixel-hq",
        result: { images: ["https://x/0.png"] },
        tokens_charged: 5,
        timestamp: "2026-11-21T07:00:00.000Z",
      },
      created_at: "2026-11-21T07:00:01.000Z",
    });
  });

  it("when a run failed, then error replaces result and tokens_charged is 0", () => {
    const failed = { ...run, status: "FAILED", output: null, errorCode: "TIMEOUT", errorMessage: "too slow" };
    expect(perRunPayload("run.failed", failed).data).toEqual({
      run_id: "run_1",
      model_id: "acme/pixel-hq",
      error: { message: "too slow", code: "TIMEOUT" },
      tokens_charged: 0,
    });
  });

  it("when a run was canceled, then the payload has canceled_at and tokens_charged", () => {
    const canceled = {
      ...run,
      status: "CANCELED",
      tokensCharged: 0,
      canceledAt: new Date("2026-11-21T07:00:02.000Z"),
    };
    expect(endpointPayload("run.canceled", canceled, "wh_1", new Date()).data).toMatchObject({
      canceled_at: "2026-11-21T07:00:02.000Z",
      tokens_charged: 0,
      timestamp: "2026-11-21T07:00:02.000Z",
    });
    expect(eventForStatus("CANCELED")).toBe("run.canceled");
    expect(eventForStatus("EXECUTING")).toBeNull();
  });
});

describe("delivery rules", () => {
  it("when attempts fail, then the delays double from the base", () => {
    expect([1, 2, 3].map((n) => retryDelay(n, 30_000))).toEqual([30_000, 60_000, 120_000]);
  });

  it.each([
    [200, true],
    [204, true],
    [299, true],
    [301, false],
    [404, false],
    [500, false],
    [199, false],
  ])("when the receiver answers %i, then success is %p", (status, ok) => {
    expect(isDeliverySuccess(status)).toBe(ok);
  });

  it.each([
    [{ name: "TimeoutError", code: "ETIMEDOUT" }, "timeout"],
    [{ name: "HeadersTimeoutError", code: "UND_ERR_HEADERS_TIMEOUT" }, "timeout"],
    [{ name: "ConnectTimeoutError", code: "UND_ERR_CONNECT_TIMEOUT" }, "timeout"],
    [{ code: "ECONNREFUSED" }, "connection"],
    [{ code: "DEPTH_ZERO_SELF_SIGNED_CERT" }, "tls"],
    [{ code: "ERR_TLS_CERT_ALTNAME_INVALID" }, "tls"],
    [{ code: "ERR_REFUSED_ADDRESS" }, "refused_address"],
  ])("when the transport error is %p, then its class is %s", (error, cls) => {
    expect(classifyTransportError(error)).toBe(cls);
  });
});

describe("internal addresses", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.5.5.5", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["192.168.1.1", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["255.255.255.255", true],
    ["::1", true],
    ["::", true],
    ["fe80::1", true],
    ["fd00::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:10.0.0.1", true],
    ["not an ip", true],
    ["8.8.8.8", false],
    ["93.184.216.34", false],
    ["2606:4700:4700::1111", false],
    ["::ffff:8.8.8.8", false],
    // IPv6 forms that embed an IPv4 address are judged by it.
    ["::127.0.0.1", true],
    ["::7f00:1", true],
    ["::a00:1", true],
    ["::8.8.8.8", false],
    ["::ffff:0:127.0.0.1", true],
    ["64:ff9b::7f00:1", true],
    ["64:ff9b::a9fe:a9fe", true],
    ["64:ff9b::808:808", false],
    ["64:ff9b:1::808:808", true],
    ["2002:7f00:1::1", true],
    ["2002:c0a8:101::1", true],
    ["2002:808:808::1", false],
    ["2001:0:7f00:1::1", true],
    ["2001:0:808:808:0:0:f5ff:fffe", true], // Teredo client 10.0.0.1 (XOR 0xff)
    ["2001:0:808:808:0:0:f7f7:f7f7", false], // Teredo client 8.8.8.8
  ])("when the address is %s, then internal is %p", (address, internal) => {
    expect(isInternalAddress(address)).toBe(internal);
  });
});

describe("run.started bodies", () => {
  it("when filled in for a run, then they are the start statement's templates with its values, an endpoint's id between head and tail", () => {
    const at = new Date("2026-11-26T10:00:00.123Z");
    const run = { id: "run_1", modelId: 'acme/"odd"$&' };
    const { runBody, endpointHead, endpointTail } = startedBodies(run, at);
    const data = { run_id: "run_1", model_id: 'acme/"odd"$&', started_at: at.toISOString() };
    expect(JSON.parse(runBody)).toEqual({ event: "run.started", data });
    expect(JSON.parse(endpointHead + JSON.stringify("wh_9") + endpointTail)).toEqual({
      event: "run.started",
      webhook_id: "wh_9",
      data: { ...data, timestamp: at.toISOString() },
      created_at: at.toISOString(),
    });
    const { perRun, placeholders } = startedTemplates();
    expect(runBody.length).toBe(
      perRun.length -
        placeholders.runId.length -
        placeholders.modelId.length -
        placeholders.startedAt.length +
        JSON.stringify(run.id).length +
        JSON.stringify(run.modelId).length +
        JSON.stringify(at.toISOString()).length,
    );
  });
});
