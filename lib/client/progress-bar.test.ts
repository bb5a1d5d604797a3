import { describe, expect, it } from "vitest";
import type { LivePass } from "../board/live-progress";
import { passBar, passShare } from "./progress-bar";

const pass = (over: Partial<LivePass>): LivePass => ({
  engine: "candidate",
  workload: "team",
  pass: 1,
  elapsedSeconds: 4,
  fixedSeconds: 10,
  requests: 21,
  tokensPerSecond: 148.24,
  done: false,
  failed: null,
  ...over,
});

describe("a pass's progress bar", () => {
  it("fills with the pass's share of its fixed time and shows its clock, requests and speed", () => {
    expect(passShare(pass({}))).toBe(0.4);
    expect(passBar(pass({}), 3, 10)).toBe(
      "candidate team pass 2/3 [████░░░░░░]  40%  4.0/10 s  21 requests  148.2 tok/s",
    );
    expect(passBar(pass({ elapsedSeconds: 12, requests: 1, tokensPerSecond: null }), null, 4)).toBe(
      "candidate team pass 2 [████] 100%  12.0/10 s  1 request",
    );
  });

  it("is full once the pass ended, with its measured speed and failures", () => {
    expect(passBar(pass({ done: true, failed: 2, tokensPerSecond: 150.04 }), 3, 10)).toBe(
      "candidate team pass 2/3 [██████████] done  21 requests, 2 failed  150.0 tok/s",
    );
    expect(passShare(pass({ fixedSeconds: null }))).toBe(0);
  });
});
