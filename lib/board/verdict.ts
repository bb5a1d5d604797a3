import type { ResultView } from "./result-view";

/**
 * What a row says beside its SpecScore. `failed` is every SpecScore of 0 (protocol sections 5 and 7): a gate that
 * failed (`gate`), or a candidate that did not start, died, or failed too many requests; always with its reason in
 * words. `passed` is a SpecScore above 0; null when there is nothing to say (no result yet, or a void one).
 */
export type Verdict = { kind: "passed" } | { kind: "failed"; gate: boolean; reason: string } | null;

export function verdictOf(result: ResultView | null): Verdict {
  if (!result) return null;
  if (result.lossless === false) {
    const reason = result.reason ?? result.gates.find((g) => !g.pass)?.check ?? "a gate failed";
    return { kind: "failed", gate: true, reason };
  }
  if (result.score === 0) return { kind: "failed", gate: false, reason: result.reason ?? "a workload's speedup is 0" };
  // a SpecScore above 0 is given only when every gate passed (protocol section 5), also where no gate table was kept
  if (result.score !== null && result.score > 0) return { kind: "passed" };
  return null;
}

/** The evaluation page's verdict line. */
export function verdictLine(verdict: Verdict): string {
  if (verdict === null) return "Not scored.";
  if (verdict.kind === "passed") return "Passed every gate.";
  return verdict.gate ? `Failed a gate: ${verdict.reason}.` : `Scored 0: ${verdict.reason}.`;
}
