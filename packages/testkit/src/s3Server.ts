import { mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  prefix: string;
  /** What a process needs to use the bucket (OUTPUT_STORAGE=s3 and credentials). */
  env: Record<string, string>;
  /** The keys stored under the prefix, without it (`<token>/<name>`), sorted. */
  keys(): Promise<string[]>;
  /** Makes an object look written `days` ago (LastModified is its file's mtime). */
  age(key: string, days: number): Promise<void>;
  close(): Promise<void>;
}

/** A real S3-protocol server (s3rver) on 127.0.0.1 with one bucket, its objects in a temporary folder. */
export async function startS3Server(prefix = "outputs/"): Promise<TestS3Server> {
  const dir = await mkdtemp(join(tmpdir(), "svc-s3-"));
  const bucket = "svc-test-outputs";
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const root = join(dir, bucket, ...prefix.split("/").filter(Boolean));
  return {
    endpoint,
    bucket,
    prefix,
    env: {
      OUTPUT_STORAGE: "s3",
      S3_BUCKET: bucket,
      S3_PREFIX: prefix,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: "true",
      S3_REGION: "us-east-1",
      // s3rver's built-in account.
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    },
    async keys() {
      const entries = await readdir(root, { recursive: true }).catch(() => []);
      return entries
        .filter((e) => e.endsWith("._S3rver_object"))
        .map((e) => e.slice(0, -"._S3rver_object".length))
        .sort();
    },
    async age(key, days) {
      const when = new Date(Date.now() - days * 86_400_000);
      await utimes(join(root, `${key}._S3rver_object`), when, when);
    },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
