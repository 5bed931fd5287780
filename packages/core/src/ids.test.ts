import { newId } from "./ids.js";

describe("newId", () => {
  it("when an id is made, then it has the prefix and 22 base62 characters", () => {
    expect(newId("run")).toMatch(/^run_[0-9A-Za-z]{22}$/);
  });

  it("when many ids are made, then they are distinct and not ordered", () => {
    const ids = Array.from({ length: 500 }, () => newId("wh"));
    expect(new Set(ids).size).toBe(500);
    expect([...ids].sort()).not.toEqual(ids);
  });
});
