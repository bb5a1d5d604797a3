import { describe, expect, it } from "vitest";
import { describeAnswers, type EvaluationOutcome, formatTable, summarize } from "./drill-table";

const scored: EvaluationOutcome = {
  status: "scored",
  charges: 1,
  refunds: 0,
  passStarts: { "candidate/solo/0": 1 },
  restartedFromZero: false,
};

describe("the drills' table", () => {
  it("counts stuck, lost, double-charged and restarted-from-zero evaluations", () => {
    const row = {
      fault: "worker SIGKILL",
      evaluations: [
        scored,
        { ...scored, status: "running" },
        { ...scored, status: "void", refunds: 1 },
        { ...scored, status: "void", refunds: 0 },
        { ...scored, charges: 2 },
        { ...scored, passStarts: { "candidate/solo/0": 2 } },
        { ...scored, restartedFromZero: true },
      ],
      answers: [],
    };
    expect(summarize(row)).toEqual({ affected: 7, stuck: 1, lost: 2, doubleCharged: 2, restartedFromZero: 2 });
  });

  it("says each probe's answers in the order first seen, with the slowest", () => {
    expect(
      describeAnswers([
        { name: "health", status: 503, ms: 120 },
        { name: "budget", status: 200, ms: 80 },
        { name: "health", status: 503, ms: 400 },
        { name: "health", status: 0, ms: 5000 },
      ]),
    ).toBe("health 503×2 no answer×1 (≤5.0 s); budget 200×1 (≤0.1 s)");
    expect(describeAnswers([])).toBe("none asked");
  });

  it("aligns its columns", () => {
    const table = formatTable([
      { fault: "Redis killed", evaluations: [scored], answers: [{ name: "health", status: 503, ms: 10 }] },
      { fault: "PostgreSQL down 10 s", evaluations: [scored, scored], answers: [], note: "timed out" },
    ]).split("\n");
    expect(table[0]).toMatch(/^fault +\| evaluations \| stuck \| lost \| double-charged \| restarted from zero \| API/);
    expect(table).toHaveLength(4);
    expect(table[3]).toMatch(/^PostgreSQL down 10 s \(timed out\) \| 2 +\| 0 +\| 0 +\| 0 +\| 0 +\| none asked$/);
    expect(
      new Set(
        table
          .slice(0, 1)
          .concat(table.slice(2))
          .map((l) => l.indexOf("|")),
      ).size,
    ).toBe(1);
  });
});
