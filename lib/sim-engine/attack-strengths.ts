import type { SamplingParams } from "./model/sampling";

/**
 * Parametric attacks (issue 17): how far an engine strays from the target's sampling or its forward pass, so that the
 * checks' power can be measured as a function of the attack's size. Each is off when absent; any mode may carry them.
 */
export interface AttackStrengths {
  /** Samples at the requested temperature × this (a greedy request stays greedy: 0 × s is 0). */
  temperatureScale?: number;
  /** Samples with this top_k whatever the request asks (a greedy request stays greedy). */
  topK?: number;
  /** The quantized attack's logit perturbation × this: 1 is the `quantized` mode's, 0 the target's own. */
  quantizeScale?: number;
}

/** The largest top_k override: beyond the few hundred tokens the toy target's support holds, larger k change nothing. */
export const MAX_TOP_K_OVERRIDE = 1000;

/** What is wrong with a set of strengths, naming the flag that sets each, or null; the CLI and startSimEngine share it. */
export function strengthsProblem(s: AttackStrengths): string | null {
  const { temperatureScale: t, topK: k, quantizeScale: q } = s;
  if (t !== undefined && !(Number.isFinite(t) && t > 0 && t <= 10))
    return "--temperature-scale must be a number in (0, 10]";
  if (k !== undefined && !(Number.isInteger(k) && k >= 1 && k <= MAX_TOP_K_OVERRIDE))
    return `--top-k must be an integer from 1 to ${MAX_TOP_K_OVERRIDE}`;
  if (q !== undefined && !(Number.isFinite(q) && q >= 0 && q <= 100))
    return "--quantize-scale must be a number in [0, 100]";
  return null;
}

/** The sampling an engine with these strengths uses for a request's own, or null when none of them touches it. */
export function strengthsSampling(s: AttackStrengths): ((requested: SamplingParams) => SamplingParams) | null {
  const { temperatureScale, topK } = s;
  if (temperatureScale === undefined && topK === undefined) return null;
  return (requested) => ({
    ...requested,
    temperature: requested.temperature * (temperatureScale ?? 1),
    topK: topK ?? requested.topK,
  });
}

/** The strengths as the start-up log names them (empty when none is set). */
export function strengthsLabel(s: AttackStrengths): string {
  const parts: string[] = [];
  if (s.temperatureScale !== undefined) parts.push(`temperature × ${s.temperatureScale}`);
  if (s.topK !== undefined) parts.push(`top_k ${s.topK}`);
  if (s.quantizeScale !== undefined) parts.push(`perturbation × ${s.quantizeScale}`);
  return parts.join(", ");
}
