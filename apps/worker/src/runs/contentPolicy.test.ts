import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBlocklist } from "./contentPolicy.js";

describe("content policy blocklist", () => {
  it("when terms come from the variable and a file, then both count; blanks and # comments do not", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "policy-")), "blocklist.txt");
    await writeFile(file, "# one term per line\nfile term\n\n  spaced term  \n");
    expect(loadBlocklist({ CONTENT_POLICY_BLOCKLIST: "alpha, beta ,,", CONTENT_POLICY_FILE: file })).toEqual([
      "alpha",
      "beta",
      "file term",
      "spaced term",
    ]);
  });

  it("when nothing is configured, then the list is empty", () => {
    expect(loadBlocklist({ CONTENT_POLICY_BLOCKLIST: "", CONTENT_POLICY_FILE: undefined })).toEqual([]);
  });

  it("when the file does not exist, then start-up fails naming it", () => {
    expect(() =>
      loadBlocklist({ CONTENT_POLICY_BLOCKLIST: "", CONTENT_POLICY_FILE: "/nonexistent/list.txt" }),
    ).toThrow(/nonexistent/);
  });
});
