import { modelServerUrl } from "./modelServers.js";

describe("model server URLs", () => {
  it("when one server is spelled two ways, then both read as one URL (its places are counted by it)", () => {
    const read = (url: string) => modelServerUrl.parse(url);
    expect(read("HTTP://GPU-1:80/")).toBe("http://gpu-1");
    expect(read("http://gpu-1")).toBe("http://gpu-1");
    expect(read("http://gpu-1:5000/v1/")).toBe("http://gpu-1:5000/v1");
  });

  it("when a server is at a metadata address, then it is refused", () => {
    expect(modelServerUrl.safeParse("http://169.254.169.254/latest").success).toBe(false);
    expect(modelServerUrl.safeParse("ftp://gpu-1").success).toBe(false);
  });
});
