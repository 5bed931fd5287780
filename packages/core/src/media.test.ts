import { isTokenOfRun, OUTPUT_TOKEN, outputUrl, runFilesIn, runOutputToken } from "./media.js";
describe("a run's own output files", () => {
  const key = Buffer.alloc(32, 7);
  const base = "https://api.test";
  it("are told by a token minted for the run, never by an URL of ours its output merely names", () => {
    const mine = runOutputToken(key, "run_A");
    const theirs = runOutputToken(key, "run_B");
    expect(mine).toMatch(OUTPUT_TOKEN);
    expect(isTokenOfRun(key, "run_A", mine)).toBe(true);
    expect(isTokenOfRun(key, "run_B", mine)).toBe(false);
    expect(isTokenOfRun(Buffer.alloc(32, 8), "run_A", mine)).toBe(false);
    // A token made before tokens named their run (random throughout) is no run's.
    expect(isTokenOfRun(key, "run_A", `out_${"a".repeat(22)}`)).toBe(false);
    const output = {
      images: [outputUrl(base, `${mine}/0.png`), outputUrl(base, `${theirs}/0.png`)],
      prompt: outputUrl(base, `${mine}/1.png`),
    };
    expect(runFilesIn(output, base, key, "run_A")).toEqual([
      [outputUrl(base, `${mine}/0.png`), `${mine}/0.png`],
      [outputUrl(base, `${mine}/1.png`), `${mine}/1.png`],
    ]);
    expect(runFilesIn(output, base, key, "run_B").map(([, k]) => k)).toEqual([`${theirs}/0.png`]);
  });
});
