import { bearerToken, displayPrefix, generateApiKey, hashApiKey, parseApiKeyMode } from "./apiKeys.js";

describe("generateApiKey", () => {
  it("when a live key is made, then it has the live prefix and 32 random bytes of secret", () => {
    const { key, mode } = generateApiKey("live");
    expect(mode).toBe("live");
    expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice("svc_live_".length), "base64url")).toHaveLength(32);
  });

  it("when a test key is made, then its mode parses back as test", () => {
    expect(parseApiKeyMode(generateApiKey("test").key)).toBe("test");
  });

  it("when many keys are made, then no two are equal", () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey("live").key));
    expect(keys.size).toBe(1000);
  });

  it("when a key is made, then the stored hash is its SHA-256 and the prefix cannot be used as the key", () => {
    const generated = generateApiKey("live");
    expect(generated.hash).toBe(hashApiKey(generated.key));
    expect(generated.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(generated.hash).not.toContain(generated.key.slice(9));
    expect(generated.prefix).toBe(displayPrefix(generated.key));
    expect(generated.prefix.length).toBeLessThan(16);
  });
});

describe("hashApiKey", () => {
  it("when hashing a known value, then it matches the SHA-256 test vector", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("parseApiKeyMode", () => {
  it.each([
    ["svc_live_", null],
    ["svc_prod_" + "a".repeat(43), null],
    ["svc_live_" + "a".repeat(42), null],
    ["svc_live_" + "a".repeat(44), null],
    ["svc_live_" + "a".repeat(42) + "!", null],
    ["svc_test_" + "a".repeat(43), "test"],
  ])("when the text is %s, then the mode is %s", (text, mode) => {
    expect(parseApiKeyMode(text)).toBe(mode);
  });
});

describe("bearerToken", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["Basic abc", null],
    ["Bearer", null],
    ["Bearer a b", null],
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
  ])("when the header is %p, then the token is %p", (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
