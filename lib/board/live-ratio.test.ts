import { describe, expect, it } from "vitest";
import type { LivePass } from "./live-progress";
import { liveRatios } from "./live-ratio";

const pass = (engine: string, workload: string, n: number, speed: number, done = true): LivePass => ({
  engine,
  workload,
  pass: n,
  elapsedSeconds: 0,
  fixedSeconds: 150,
  requests: 10,
  tokensPerSecond: speed,
  done,
  failed: null,
});

describe("liveRatios", () => {
  it("pairs each pass the candidate finished with the stock engine's, finished or so far", () => {
    const ratios = liveRatios([
      pass("candidate", "solo", 0, 200),
      pass("candidate", "solo", 1, 300),
      pass("candidate", "solo", 2, 240),
      pass("candidate", "team", 0, 900),
      pass("stock", "solo", 0, 100),
      pass("stock", "solo", 1, 100),
      pass("stock", "solo", 2, 120, false),
    ]);
    // 2.0, 3.0 and, so far, 2.0: the median is 2.0, over two finished pairs and one under way
    expect(ratios).toEqual([{ workload: "solo", ratio: 2, passes: 2, provisional: true }]);
  });

  it("says nothing before the stock engine has played a pass", () => {
    expect(liveRatios([pass("candidate", "solo", 0, 200), pass("stock", "solo", 0, 0, false)])).toEqual([]);
  });
});
