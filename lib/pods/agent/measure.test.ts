import { describe, expect, it } from "vitest";
import type { PassSummary } from "@/lib/judge/speeds/summary";
import { WORKLOAD_IDS } from "@/lib/protocol";
import { stockPassWithoutSpeed, type TimedResults } from "./measure";

type Figures = Pick<PassSummary, "speed" | "requests" | "counted" | "failed" | "outputTokens" | "allBusySeconds">;
const good: Figures = { speed: 120, requests: 10, counted: 10, failed: 0, outputTokens: 3000, allBusySeconds: 20 };

/** Three passes of each workload with these figures, `at` replacing one pass's. */
function timed(at?: { workload: string; pass: number; figures: Partial<Figures> }): TimedResults {
  return Object.fromEntries(
    WORKLOAD_IDS.map((w) => [
      w,
      {
        passes: [0, 1, 2].map((pass) => ({
          pass,
          summary: {
            ...good,
            workload: w,
            pass,
            lanes: w === "solo" ? 1 : 8,
            speedKind: w === "solo" ? "request-time" : "all-lanes-busy",
            ...(at && at.workload === w && at.pass === pass + 1 ? at.figures : {}),
          },
        })),
      },
    ]),
  ) as unknown as TimedResults;
}

describe("a stock pass without a speed", () => {
  it("is none when every stock pass has a positive speed", () => {
    expect(stockPassWithoutSpeed(timed())).toBeNull();
  });

  it("names the first pass with none, and why: nothing counted, lanes never all busy, or no tokens", () => {
    expect(
      stockPassWithoutSpeed(timed({ workload: "team", pass: 2, figures: { speed: null, counted: 0, failed: 10 } })),
    ).toBe("the stock engine measured no speed in team pass 2: none of its 10 requests counted (10 failed)");
    expect(
      stockPassWithoutSpeed(timed({ workload: "busy", pass: 1, figures: { speed: null, allBusySeconds: 0 } })),
    ).toBe("the stock engine measured no speed in busy pass 1: its 8 lanes were never busy at once");
    expect(stockPassWithoutSpeed(timed({ workload: "solo", pass: 3, figures: { speed: 0, outputTokens: 0 } }))).toBe(
      "the stock engine measured no speed in solo pass 3: 0 output tokens counted",
    );
  });
});
