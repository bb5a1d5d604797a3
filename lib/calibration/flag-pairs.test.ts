import { describe, expect, it } from "vitest";
import { flagPairs } from "./flag-pairs";

describe("the calibration commands' flags", () => {
  it("reads --flag value pairs and names what is wrong with the rest", () => {
    expect(flagPairs(["--c", "0.25,1", "--m", "2"], "usage")).toEqual({ c: "0.25,1", m: "2" });
    expect(() => flagPairs(["c", "1"], "usage: x")).toThrow('bad argument "c"\nusage: x');
    expect(() => flagPairs(["--c"], "usage: x")).toThrow("--c needs a value\nusage: x");
    expect(() => flagPairs(["--c", "--m", "2"], "usage: x")).toThrow("--c needs a value");
  });
});
