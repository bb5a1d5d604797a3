import { type AttackStrengths, strengthsSampling } from "./attack-strengths";
import type { SamplingParams } from "./model/sampling";
import type { SpeculatorMethod } from "./speculators/drafters";

export const HONEST_MODES = ["stock", "ngram", "draft", "eagle"] as const;
export const ATTACK_MODES = [
  "loose-accept",
  "greedy",
  "other-sampling",
  "quantized",
  "cut-replies",
  "memory-hog",
  "failing",
  "crash",
  "never-healthy",
] as const;
export const MODES = [...HONEST_MODES, ...ATTACK_MODES] as const;
export type Mode = (typeof MODES)[number];

export const DEFAULT_K: Record<SpeculatorMethod, number> = { ngram: 4, draft: 4, eagle: 3 };

/** How a mode breaks the rules (protocol section 9); every field off is the honest engine. */
export interface ModeBehaviour {
  /** The speculator a mode implies when none is configured. */
  speculator: SpeculatorMethod | null;
  /** Loose acceptance: accept a draft whenever p/q exceeds this (instead of with probability min(1, p/q)). */
  looseThreshold: number | null;
  /** Sampling used instead of the request's. */
  overrideSampling: ((requested: SamplingParams) => SamplingParams) | null;
  /** The quantized attack's perturbation, as a multiple of QUANTIZED_PARAMS' (0: the target's own logits). */
  quantizeScale: number;
  /** Replies end at this share of their budget, reported as a natural stop. */
  cutShare: number | null;
  /** Device share held instead of GPU_MEMORY_UTILIZATION. */
  memoryUtilization: number | null;
  failing: boolean;
  crash: boolean;
  neverHealthy: boolean;
}

const honest: ModeBehaviour = {
  speculator: null,
  looseThreshold: null,
  overrideSampling: null,
  quantizeScale: 0,
  cutShare: null,
  memoryUtilization: null,
  failing: false,
  crash: false,
  neverHealthy: false,
};

/** Modes that fix the sampling themselves: a temperature scale or a top_k override on top would be two attacks in one. */
const FIXED_SAMPLING: readonly Mode[] = ["greedy", "other-sampling"];

/** Why a mode cannot carry these strengths (naming the flags), or null. */
export function strengthsConflict(mode: Mode, s: AttackStrengths): string | null {
  if (!FIXED_SAMPLING.includes(mode) || strengthsSampling(s) === null) return null;
  return `--temperature-scale and --top-k cannot be combined with --mode ${mode}, which fixes the sampling itself`;
}

/** A mode's behaviour, with the parametric attacks' strengths on top (attack-strengths.ts). */
export function behaviourOf(mode: Mode, strengths: AttackStrengths = {}): ModeBehaviour {
  const conflict = strengthsConflict(mode, strengths);
  if (conflict) throw new Error(conflict);
  const base = modeBehaviour(mode);
  const sampling = strengthsSampling(strengths);
  return {
    ...base,
    overrideSampling: sampling ?? base.overrideSampling,
    quantizeScale: strengths.quantizeScale ?? base.quantizeScale,
  };
}

function modeBehaviour(mode: Mode): ModeBehaviour {
  switch (mode) {
    case "stock":
      return honest;
    case "ngram":
    case "draft":
    case "eagle":
      return { ...honest, speculator: mode };
    case "loose-accept":
      return { ...honest, speculator: "draft", looseThreshold: 0.3 };
    case "greedy":
      return { ...honest, overrideSampling: (s) => ({ ...s, temperature: 0 }) };
    case "other-sampling":
      return { ...honest, overrideSampling: (s) => ({ ...s, temperature: 0.5, topK: 5 }) };
    case "quantized":
      return { ...honest, quantizeScale: 1 };
    case "cut-replies":
      return { ...honest, cutShare: 0.5 };
    case "memory-hog":
      return { ...honest, memoryUtilization: 0.97 };
    case "failing":
      return { ...honest, failing: true };
    case "crash":
      return { ...honest, crash: true };
    case "never-healthy":
      return { ...honest, neverHealthy: true };
  }
}
