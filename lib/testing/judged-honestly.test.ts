import { describe, expect, it } from "vitest";
import { failedByChance, type HonestRun, judgedHonestly } from "./judged-honestly";

const run = (failedGates: string[], status = "scored"): HonestRun => ({
  status,
  specscore: failedGates.length ? 0 : 1.2,
  failedGates,
});

describe("an honest engine's evaluation, judged", () => {
  it("counts only the sampled checks' failures as chance", () => {
    expect(failedByChance(run(["argmax"]))).toBe(true);
    expect(failedByChance(run(["likelihood", "argmax"]))).toBe(true);
    expect(failedByChance(run([]))).toBe(false);
    expect(failedByChance(run(["fidelity"]))).toBe(false);
    expect(failedByChance(run(["argmax", "greedy"]))).toBe(false);
    expect(failedByChance(run(["argmax"], "failed"))).toBe(false);
    // as the database keeps them: the checks' names
    expect(failedByChance(run(["share of first choices", "sampled replies' likelihood"]))).toBe(true);
    expect(failedByChance(run(["share of first choices", "greedy agreement"]))).toBe(false);
  });

  it("plays a run again only after a chance failure, and judges the second", async () => {
    const lines: string[] = [];
    const played = (runs: HonestRun[]) => {
      let i = 0;
      return async () => runs[i++]!;
    };
    const once = await judgedHonestly(played([run([]), run(["argmax"])]), (l) => lines.push(l));
    expect(once).toEqual({ first: run([]), last: run([]), history: "" });
    const broken = await judgedHonestly(played([run(["fidelity"]), run([])]), (l) => lines.push(l));
    expect(broken.last).toEqual(run(["fidelity"]));
    expect(lines).toEqual([]);
    const twice = await judgedHonestly(played([run(["argmax"]), run(["likelihood"])]), (l) => lines.push(l));
    expect(twice.first).toEqual(run(["argmax"]));
    expect(twice.last).toEqual(run(["likelihood"]));
    expect(twice.history).toContain("the first run failed [argmax]");
    expect(lines).toHaveLength(1);
  });
});
