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
  quantized: boolean;
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
  quantized: false,
  cutShare: null,
  memoryUtilization: null,
  failing: false,
  crash: false,
  neverHealthy: false,
};

export function behaviourOf(mode: Mode): ModeBehaviour {
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
      return { ...honest, quantized: true };
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
