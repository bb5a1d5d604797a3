import type { WorkloadId } from "@/lib/protocol";
import type { GateKey } from "./schema";

/** The sentence the board shows for a failed gate (the seed board's wording for the likelihood). */
export const GATE_REASONS: Record<GateKey, string> = {
  memory: "the engine held more device memory than GPU_MEMORY_UTILIZATION allows, plus its slack",
  offload: "the engine's start-up log reports weights or KV blocks in host memory",
  fidelity: "the target's log-probabilities on fixed texts differ from the stock engine's",
  likelihood: "sampled replies are more or less likely under the target than the stock engine's",
  argmax: "sampled replies take the target's first choice more or less often than the stock engine's",
  greedy: "greedy replies agree with the stock engine's on too little of their length",
  length: "replies are longer or shorter than the stock engine's",
  answers: "the engine left more than 10% of a check's requests unanswered",
};

export const GATE_CHECKS: Record<GateKey, string> = {
  memory: "device memory",
  offload: "host memory offload",
  fidelity: "fixed texts' log-probabilities",
  likelihood: "sampled replies' likelihood",
  argmax: "share of first choices",
  greedy: "greedy agreement",
  length: "reply lengths",
  answers: "check requests answered",
};

/** When several gates fail, the reason shown is the first of these that failed. */
export const REASON_ORDER: readonly GateKey[] = [
  "answers",
  "offload",
  "memory",
  "fidelity",
  "likelihood",
  "argmax",
  "greedy",
  "length",
];

/** The evaluation page's table order. */
export const TABLE_ORDER: readonly GateKey[] = [
  "memory",
  "offload",
  "fidelity",
  "likelihood",
  "argmax",
  "greedy",
  "length",
  "answers",
];

export const VOID_REASON =
  "the stock engine left more than 10% of a check's requests unanswered: the evaluation is void";

const list = (ws: readonly string[]) =>
  ws.length < 2 ? ws.join("") : `${ws.slice(0, -1).join(", ")} and ${ws.at(-1)}`;

/**
 * Why SpecScore is 0 when every gate passed: a workload's speedup, the median of its passes, is 0. The protocol's
 * failed-requests rule (section 7) is the usual cause: each pass that breaks it counts as a ratio of 0.
 */
export function zeroSpeedReason(zeroed: readonly WorkloadId[], brokenByFailures: readonly WorkloadId[]): string {
  if (brokenByFailures.length > 0)
    return `the candidate failed more requests than the stock engine on most passes of ${list(brokenByFailures)}`;
  return `the candidate's speedup on ${list(zeroed) || "a workload"} is 0`;
}
