import { describe, expect, it } from "vitest";
import { rankEntries } from "./ranking";
import { resultView } from "./result-view";
import { defaultDirection, sortBoard } from "./sort-board";
import { testEntry } from "./test-entries";

const withLatency = (id: string, score: number, ttftP50: number | null, method: string) =>
  testEntry({
    evaluationId: id,
    score,
    method,
    result: resultView({
      score,
      ratios: {
        solo: { passes: [score], ratio: score },
        team: { passes: [1], ratio: 1 },
        busy: { passes: [1], ratio: 1 },
      },
      latency:
        ttftP50 === null
          ? {}
          : { solo: { candidate: { ttft_ms: { p50: ttftP50, p90: 1, p99: 1 }, tpot_ms: null }, stock: null } },
    }),
  });

describe("sortBoard", () => {
  const board = rankEntries([
    withLatency("a", 1.9, 300, "zeta"),
    withLatency("b", 1.5, 100, "alpha"),
    withLatency("c", 1.2, null, "Beta"),
  ]);

  it("sorts by a number column either way, rows without a value staying last", () => {
    expect(sortBoard(board, "ttft-solo", "asc").map((e) => e.evaluationId)).toEqual(["b", "a", "c"]);
    expect(sortBoard(board, "ttft-solo", "desc").map((e) => e.evaluationId)).toEqual(["a", "b", "c"]);
    expect(sortBoard(board, "solo", "asc").map((e) => e.evaluationId)).toEqual(["c", "b", "a"]);
  });

  it("sorts text columns without regard to case", () => {
    expect(sortBoard(board, "solution", "asc").map((e) => e.method)).toEqual(["alpha", "Beta", "zeta"]);
  });

  it("sorts a column better-first on its first click", () => {
    expect(defaultDirection("score")).toBe("desc");
    expect(defaultDirection("tpot-busy")).toBe("asc");
    expect(defaultDirection("rank")).toBe("asc");
    expect(defaultDirection("acceptance-team")).toBe("desc");
  });
});
