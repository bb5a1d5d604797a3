import type { AgentEvent } from "../pods/agent/events";

type PodResult = Extract<AgentEvent, { type: "result" }>;

/** How an evaluation ends, from the pod's result: its state, its SpecScore, its reason, and whether it is refunded. */
export type Ending =
  | { status: "scored"; specscore: number; reason: string | null; refund: false }
  | { status: "failed"; specscore: null; reason: string; refund: false }
  | { status: "void"; specscore: null; reason: string; refund: true };

const arenaFault = (reason: string): Ending => ({ status: "void", specscore: null, reason, refund: true });

/**
 * The board's rules on a pod's result (protocol sections 5, 7 and 8). A measurement is `scored`, SpecScore 0 with
 * its reason included: a gate that failed, a candidate that did not start or died (`scored` without a record), a
 * workload zeroed by the failed-requests rule. `failed` is what could not be measured because of the participant
 * (a broken plugin/): charged, never ranked. `void` is the arena's fault: refunded.
 *
 * Invariant: a scored evaluation has a reason exactly when its SpecScore is 0.
 *
 * An agent built before this rule reported a gate failure as `failed` with its record: a record with a score is a
 * measurement whatever the outcome says, so such a pod is judged the same.
 */
export function resultEnding(result: PodResult): Ending {
  const record = result.record;
  if (result.outcome === "void") return arenaFault(result.reason ?? textOf(record?.void) ?? "the pod voided it");
  if (record) {
    if (typeof record.void === "string") return arenaFault(record.void);
    const score = record.score;
    if (typeof score !== "number" || !Number.isFinite(score) || score < 0)
      return arenaFault("the judge's record holds no SpecScore");
    if (score > 0) return { status: "scored", specscore: score, reason: null, refund: false };
    const reason = textOf(record.reason) ?? result.reason;
    return { status: "scored", specscore: 0, reason: reason ?? "a workload's speedup is 0", refund: false };
  }
  if (!result.reason) return arenaFault(`the pod ended ${result.outcome} without a record or a reason`);
  if (result.outcome === "scored") return { status: "scored", specscore: 0, reason: result.reason, refund: false };
  return { status: "failed", specscore: null, reason: result.reason, refund: false };
}

function textOf(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}
