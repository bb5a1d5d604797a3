import { currentProtocol } from "@/lib/protocol";
import type { AttackStrengths } from "@/lib/sim-engine";

/** The simulated engine's parametric attacks (lib/sim-engine/attack-strengths.ts) whose size the benchmark sweeps. */
export const ATTACK_FAMILIES = ["temperature", "top-k", "quantization"] as const;
export type AttackFamily = (typeof ATTACK_FAMILIES)[number];

export interface FamilySpec {
  /** What a strength is, as a table's header says it. */
  label: string;
  /** The strength of the honest engine: the sweep's sides are read outwards from it. */
  honest: number;
  /** The sweep run when none is given. */
  defaults: readonly number[];
  /** The engine's options at a strength. */
  options: (strength: number) => AttackStrengths;
  /**
   * Whether the attack reaches the target's forward pass: then the fixed texts (fidelity) and the greedy probes are
   * measured too. A sampling override leaves `prompt_logprobs` as they are and a temperature-0 request greedy
   * (attack-strengths.ts), so those checks cannot see it and are not run against it.
   */
  forwardPass: boolean;
}

export function familySpec(family: AttackFamily): FamilySpec {
  switch (family) {
    case "temperature":
      return {
        label: "temperature × s",
        honest: 1,
        defaults: [0.8, 0.9, 0.95, 1.05, 1.1],
        options: (s) => ({ temperatureScale: s }),
        forwardPass: false,
      };
    case "top-k":
      return {
        label: "top_k K",
        // the request's own top_k: an override to it is the honest engine
        honest: currentProtocol().sampling.topK,
        defaults: [5, 10, 15],
        options: (k) => ({ topK: k }),
        forwardPass: false,
      };
    case "quantization":
      return {
        label: "perturbation × s",
        honest: 0,
        // fidelity's ceiling falls between 0.02 and 0.05 on the toy target: the weak end shows where
        defaults: [0.01, 0.02, 0.05, 0.25, 0.5, 1],
        options: (s) => ({ quantizeScale: s }),
        forwardPass: true,
      };
  }
}
