import { ConfigError, loadApiConfig, loadWorkerConfig } from "./index.js";

const minimal = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/svc",
  SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
};

describe("Redis and Postgres topology settings", () => {
  it("when sentinels or cluster nodes are listed, then they are parsed into hosts and ports", () => {
    expect(
      loadWorkerConfig({ ...minimal, REDIS_SENTINELS: "10.0.0.1:26379, sentinel-2:26380,[::1]:26381" }),
    ).toMatchObject({
      REDIS_SENTINELS: [
        { host: "10.0.0.1", port: 26379 },
        { host: "sentinel-2", port: 26380 },
        { host: "::1", port: 26381 },
      ],
      REDIS_SENTINEL_NAME: "mymaster",
    });
    expect(
      loadWorkerConfig({ ...minimal, REDIS_CLUSTER_NODES: "a:7000,b:7001", QUEUE_PREFIX: "{svc}" }),
    ).toMatchObject({
      REDIS_CLUSTER_NODES: [
        { host: "a", port: 7000 },
        { host: "b", port: 7001 },
      ],
    });
  });

  it("when a node list is malformed, then the variable is named with the bad entry", () => {
    expect(() => loadWorkerConfig({ ...minimal, REDIS_SENTINELS: "a:26379,b" })).toThrow(
      /REDIS_SENTINELS: expected host:port entries, comma-separated \(got "b"\)/,
    );
    expect(() => loadWorkerConfig({ ...minimal, REDIS_CLUSTER_NODES: "a:99999" })).toThrow(
      /REDIS_CLUSTER_NODES/,
    );
  });

  it("when Cluster is chosen with a prefix without a hash tag, then the fix is named", () => {
    expect(() => loadWorkerConfig({ ...minimal, REDIS_CLUSTER_NODES: "a:7000" })).toThrow(
      /QUEUE_PREFIX: Redis Cluster needs a hash tag in the prefix, such as \{svc\}/,
    );
  });

  it("when both Sentinel and Cluster are set, or TLS files without TLS, or a certificate without its key, then each is refused", () => {
    expect(() =>
      loadWorkerConfig({
        ...minimal,
        REDIS_SENTINELS: "a:1",
        REDIS_CLUSTER_NODES: "b:2",
        QUEUE_PREFIX: "{s}",
      }),
    ).toThrow(/not both/);
    expect(() => loadWorkerConfig({ ...minimal, REDIS_TLS_CA_FILE: "/ca.pem" })).toThrow(
      /REDIS_TLS_CA_FILE: Redis TLS files need TLS/,
    );
    expect(() =>
      loadWorkerConfig({ ...minimal, REDIS_URL: "rediss://r:6380", REDIS_TLS_CERT_FILE: "/c.pem" }),
    ).toThrow(/REDIS_TLS_KEY_FILE: REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE go together/);
    expect(
      loadWorkerConfig({
        ...minimal,
        REDIS_SENTINELS: "a:1",
        REDIS_TLS: "true",
        REDIS_TLS_CA_FILE: "/ca.pem",
      }),
    ).toMatchObject({ REDIS_TLS: true });
  });

  it("when a Redis password is given, then an error elsewhere never echoes it", () => {
    expect(() => loadWorkerConfig({ ...minimal, REDIS_PASSWORD: "hunter2", PORT: "x" })).not.toThrow(
      /hunter2/,
    );
  });

  it("when DATABASE_POOLING is transaction, then it is kept; anything else is refused", () => {
    expect(loadWorkerConfig({ ...minimal, DATABASE_POOLING: "transaction" }).DATABASE_POOLING).toBe(
      "transaction",
    );
    expect(loadWorkerConfig(minimal).DATABASE_POOLING).toBe("session");
    expect(() => loadWorkerConfig({ ...minimal, DATABASE_POOLING: "statement" })).toThrow(/DATABASE_POOLING/);
  });
});

describe("API configuration", () => {
  it("when only DATABASE_URL is set, then every other variable takes its documented default", () => {
    const config = loadApiConfig(minimal);
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: "0.0.0.0",
      BODY_LIMIT_BYTES: 1048576,
      REDIS_URL: "redis://127.0.0.1:6379",
      QUEUE_PREFIX: "svc",
      LOG_LEVEL: "info",
      TRUST_PROXY: false,
    });
  });

  it("when DATABASE_URL or SECRETS_KEY is missing, then the error names it", () => {
    expect(() => loadApiConfig({})).toThrow(/DATABASE_URL: .*\(missing\)/);
    expect(() => loadApiConfig({})).toThrow(/SECRETS_KEY: required/);
  });

  it("when SECRETS_KEY is not 32 bytes, then it is refused without echoing it", () => {
    expect(() => loadApiConfig({ ...minimal, SECRETS_KEY: "c2hvcnQ=" })).toThrow(
      /SECRETS_KEY: expected 32 bytes.*<redacted>/,
    );
  });

  it("when several variables are bad, then each is named with what was given", () => {
    let error: unknown;
    try {
      loadApiConfig({
        ...minimal,
        PORT: "http",
        REDIS_URL: "http://x",
        LOG_LEVEL: "loud",
        TRUST_PROXY: "yes",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    expect(problems).toMatch(/PORT: expected an integer from 0 to 65535 \(got "http"\)/);
    expect(problems).toMatch(/REDIS_URL: expected a redis or rediss URL/);
    expect(problems).toMatch(/LOG_LEVEL: expected one of/);
    expect(problems).toMatch(/TRUST_PROXY: expected false, the number of proxies/);
  });

  it("when TRUST_PROXY names hops or proxies, then Express gets them; true is refused", () => {
    expect(loadApiConfig({ ...minimal, TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(loadApiConfig({ ...minimal, TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
    expect(loadApiConfig({ ...minimal, TRUST_PROXY: "loopback, 10.0.0.0/8,fd00::1" }).TRUST_PROXY).toEqual([
      "loopback",
      "10.0.0.0/8",
      "fd00::1",
    ]);
    for (const bad of ["true", "10.0.0.0/33", "proxy.internal", "1.2.3.4/8/8"])
      expect(() => loadApiConfig({ ...minimal, TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
  });

  it("when a variable is set but empty, then its default applies", () => {
    expect(loadApiConfig({ ...minimal, PORT: "" }).PORT).toBe(3000);
  });

  it("when the database URL carries a password and is wrong, then the password is not echoed", () => {
    expect(() => loadApiConfig({ DATABASE_URL: "mysql://u:hunter2@h/db" })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("hunter2") }),
    );
  });

  it("when numbers are given as text, then they are parsed", () => {
    expect(loadApiConfig({ ...minimal, PORT: "8080", AUTH_CACHE_TTL_MS: "0" })).toMatchObject({
      PORT: 8080,
      AUTH_CACHE_TTL_MS: 0,
    });
  });
});

describe("worker configuration", () => {
  it("when concurrency is zero, then it is refused", () => {
    expect(() => loadWorkerConfig({ ...minimal, WORKER_CONCURRENCY: "0" })).toThrow(/WORKER_CONCURRENCY/);
  });

  it("when defaults apply, then the grace period is 30 s", () => {
    expect(loadWorkerConfig(minimal).SHUTDOWN_GRACE_MS).toBe(30000);
  });
});

describe("output storage configuration", () => {
  it("when nothing is said, then outputs are local files served through the API", () => {
    expect(loadWorkerConfig(minimal)).toMatchObject({
      OUTPUT_STORAGE: "local",
      OUTPUT_URLS: "proxied",
      OUTPUT_URL_TTL_SECONDS: 3600,
      S3_PREFIX: "outputs/",
      OUTPUT_MAX_BYTES: 512 * 1024 * 1024,
    });
  });

  it("when s3 is chosen without a bucket, or signed URLs without s3, then the variable is named", () => {
    expect(() => loadApiConfig({ ...minimal, OUTPUT_STORAGE: "s3" })).toThrow(
      /S3_BUCKET: required with OUTPUT_STORAGE=s3/,
    );
    expect(() => loadWorkerConfig({ ...minimal, OUTPUT_URLS: "signed" })).toThrow(
      /OUTPUT_URLS: signed URLs need OUTPUT_STORAGE=s3/,
    );
  });

  it("when the bucket, prefix or endpoint is malformed, then it is refused", () => {
    const s3 = { ...minimal, OUTPUT_STORAGE: "s3", S3_BUCKET: "outputs" };
    expect(
      loadApiConfig({ ...s3, OUTPUT_URLS: "signed", S3_ENDPOINT: "http://127.0.0.1:9000" }),
    ).toMatchObject({
      S3_BUCKET: "outputs",
      OUTPUT_URLS: "signed",
    });
    expect(() => loadApiConfig({ ...s3, S3_BUCKET: "No_Such" })).toThrow(/S3_BUCKET: expected a bucket name/);
    expect(() => loadApiConfig({ ...s3, S3_PREFIX: "no-slash" })).toThrow(/S3_PREFIX/);
    expect(() => loadApiConfig({ ...s3, S3_ENDPOINT: "ftp://x" })).toThrow(/S3_ENDPOINT/);
    expect(() => loadApiConfig({ ...s3, OUTPUT_URL_TTL_SECONDS: "604801" })).toThrow(
      /OUTPUT_URL_TTL_SECONDS/,
    );
  });
});
