import { seededRandom } from "./seeded-random";

/**
 * The exact sampling audit (issue 17, item 3; shown, not gated, under protocol v1). A timed request samples each
 * token from the target's distribution after temperature, top_k and top_p. With the stock engine's top-k
 * `prompt_logprobs` at each reply token (top_k 20: the whole support the request samples from), the token's
 * randomized probability integral transform u = F(x−) + V·p(x), V ~ U(0, 1), over a fixed ordering of that support,
 * is uniform on [0, 1] and independent of every earlier u exactly when the engine sampled the target's distribution
 * (the Rosenblatt transform of a sequence sampled token by token). A goodness-of-fit test over every scored token
 * then sees cooler or hotter sampling, another top_k or top_p, loose acceptance and a perturbed target.
 */

/** The request's sampling fields: topK ≤ 0 and topP ≥ 1 disable their cut; temperature > 0. */
export interface AuditSampling {
  temperature: number;
  topK: number;
  topP: number;
}

/** One token of the target's raw distribution (log-probability at temperature 1, before any cut). */
export interface RawCandidate {
  id: number;
  logprob: number;
}

/** The distribution a request samples from, in the audit's fixed order: most likely first, ties by id. */
export interface ProcessedDist {
  ids: number[];
  probs: number[];
}

/**
 * Where a token's randomized PIT may fall: [below, below + mass). `mass` is 0 only for a token the audit gives no
 * interval (never produced here: a token outside the support falls in the reserved top interval).
 */
export interface PitInterval {
  below: number;
  mass: number;
}

/**
 * The share of the unit interval reserved, at its top, for tokens the stock engine's cut leaves out. An honest
 * engine on real hardware can draw one where a near-tie at the top_p boundary falls the other way in its own
 * floating point; so they are kept, not dropped, and an engine that draws many of them is seen. Under exact
 * sampling it moves the u's distribution at most this far from uniform (in the Kolmogorov distance).
 */
export const OUTSIDE_MASS = 1e-4;

/** vLLM's order: temperature, then top-k, then top-p (the smallest most-likely set whose mass reaches top_p). */
export function processedDistribution(raw: readonly RawCandidate[], sampling: AuditSampling): ProcessedDist {
  if (!(sampling.temperature > 0))
    throw new Error(`the audit needs a temperature above 0, got ${sampling.temperature}`);
  if (raw.length === 0) throw new Error("no candidates to sample from");
  const sorted = [...raw].sort((a, b) => b.logprob - a.logprob || a.id - b.id);
  const kept = sampling.topK > 0 ? sorted.slice(0, sampling.topK) : sorted;
  const top = kept[0]!.logprob / sampling.temperature;
  const weights = kept.map((c) => Math.exp(c.logprob / sampling.temperature - top));
  const total = weights.reduce((a, b) => a + b, 0);
  let n = kept.length;
  if (sampling.topP < 1) {
    let cum = 0;
    n = 0;
    while (n < kept.length && cum < sampling.topP * total) cum += weights[n++]!;
  }
  const mass = weights.slice(0, n).reduce((a, b) => a + b, 0);
  return { ids: kept.slice(0, n).map((c) => c.id), probs: weights.slice(0, n).map((w) => w / mass) };
}

/**
 * The interval of the token's randomized PIT under `dist` mixed with the reserved outside mass: the support in its
 * fixed order fills [0, 1 − OUTSIDE_MASS), any other token [1 − OUTSIDE_MASS, 1).
 */
export function pitInterval(dist: ProcessedDist, token: number, outside = OUTSIDE_MASS): PitInterval {
  const scale = 1 - outside;
  let below = 0;
  for (let i = 0; i < dist.ids.length; i++) {
    if (dist.ids[i] === token) return { below: below * scale, mass: dist.probs[i]! * scale };
    below += dist.probs[i]!;
  }
  return { below: scale, mass: outside };
}

/**
 * The distribution a reply's end is read under: a stream says the reply stopped, not on which stop token (a target may
 * stop on several: its generation config's `eos_token_id`), and the scoring request closes it with the template's own,
 * `end`. So the
 * observation is the union of the stop tokens: their mass is folded into one entry named `end`, at the place of the
 * most likely of them (an order fixed before the observation, as the audit's order must be).
 */
export function foldStops(dist: ProcessedDist, end: number, stops: readonly number[]): ProcessedDist {
  const isStop = (id: number) => id === end || stops.includes(id);
  const first = dist.ids.findIndex(isStop);
  if (first < 0) return dist;
  const ids: number[] = [];
  const probs: number[] = [];
  let folded = 0;
  for (let i = 0; i < dist.ids.length; i++) if (isStop(dist.ids[i]!)) folded += dist.probs[i]!;
  for (let i = 0; i < dist.ids.length; i++) {
    if (i === first) {
      ids.push(end);
      probs.push(folded);
    } else if (!isStop(dist.ids[i]!)) {
      ids.push(dist.ids[i]!);
      probs.push(dist.probs[i]!);
    }
  }
  return { ids, probs };
}

/** Whether an interval lies in the reserved outside share (the token was outside the target's processed support). */
export const isOutside = (p: PitInterval, outside = OUTSIDE_MASS) => p.below >= 1 - outside - 1e-12;

/** u = below + V·mass with V drawn from a seeded generator: the same seed gives the same u's. */
export function randomizedPits(intervals: readonly PitInterval[], seed: number): number[] {
  const rand = seededRandom(seed);
  return intervals.map((p) => p.below + rand() * p.mass);
}

export interface KsResult {
  n: number;
  /** sup |F_n(u) − u| */
  d: number;
  pValue: number;
}

/**
 * The Kolmogorov distribution's upper tail Q(λ) = 2 Σ (−1)^{j−1} e^{−2 j² λ²}, with Stephens' small-sample
 * correction λ = (√n + 0.12 + 0.11/√n)·D.
 */
export function kolmogorovPValue(d: number, n: number): number {
  if (n <= 0) return 1;
  const rootN = Math.sqrt(n);
  const lambda = (rootN + 0.12 + 0.11 / rootN) * d;
  if (lambda < 0.2) return 1;
  let sum = 0;
  for (let j = 1; j <= 100; j++) {
    const term = Math.exp(-2 * j * j * lambda * lambda);
    sum += (j % 2 === 1 ? 1 : -1) * term;
    if (term < 1e-16) break;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/** The one-sample Kolmogorov–Smirnov test of the u's against Uniform(0, 1). */
export function ksUniform(us: readonly number[]): KsResult {
  const n = us.length;
  if (n === 0) return { n: 0, d: 0, pValue: 1 };
  const sorted = Float64Array.from(us).sort();
  let d = 0;
  for (let i = 0; i < n; i++) {
    const u = sorted[i]!;
    if (!(u >= 0 && u <= 1)) throw new Error(`a PIT value outside [0, 1]: ${u}`);
    d = Math.max(d, (i + 1) / n - u, u - i / n);
  }
  return { n, d, pValue: kolmogorovPValue(d, n) };
}

/**
 * Marsaglia & Marsaglia's (2004) limiting distribution of the Anderson–Darling statistic for a fully specified
 * distribution, P(A² < z) (|error| < 2e-6); the finite-n correction is below 1e-3 past a few hundred values.
 */
function adLimitCdf(z: number): number {
  if (z <= 0) return 0;
  if (z < 2) {
    return (
      (Math.exp(-1.2337141 / z) / Math.sqrt(z)) *
      (2.00012 + (0.247105 - (0.0649821 - (0.0347962 - (0.011672 - 0.00168691 * z) * z) * z) * z) * z)
    );
  }
  return Math.exp(-Math.exp(1.0776 - (2.30695 - (0.43424 - (0.082433 - (0.008056 - 0.0003146 * z) * z) * z) * z) * z));
}

export interface AdResult {
  n: number;
  a2: number;
  pValue: number;
}

/** The Anderson–Darling test of the u's against Uniform(0, 1): weighs the tails, where hotter sampling shows. */
export function andersonDarlingUniform(us: readonly number[]): AdResult {
  const n = us.length;
  if (n === 0) return { n: 0, a2: 0, pValue: 1 };
  const sorted = Float64Array.from(us).sort();
  // u's of exactly 0 or 1 (a V of 0) would give infinite logs: keep them a hair inside
  const clamp = (u: number) => Math.min(1 - 1e-15, Math.max(1e-15, u));
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += (2 * i + 1) * (Math.log(clamp(sorted[i]!)) + Math.log(1 - clamp(sorted[n - 1 - i]!)));
  }
  const a2 = -n - sum / n;
  return { n, a2, pValue: andersonDarlingPValue(a2) };
}

/** P(A² ≥ a2) under the limiting distribution. */
export function andersonDarlingPValue(a2: number): number {
  return Math.min(1, Math.max(0, 1 - adLimitCdf(a2)));
}

/** The audit's level: below it the u's are called inconsistent with exact sampling (shown, never gated). */
export const AUDIT_ALPHA = 0.01;

/**
 * The share of tokens outside the target's processed support above which the audit calls the replies
 * inconsistent. Exact sampling draws none; an honest engine on real hardware draws a few where a near-tie at the top_p
 * boundary falls the other way in its floating point. Provisional: the calibration report sets it from A/A runs.
 */
export const OUTSIDE_TOLERANCE = 1e-3;

export interface SamplingAuditResult {
  /** Replies audited (scored on their whole conversation) and their tokens. */
  replies: number;
  tokens: number;
  /**
   * Tokens whose PIT carries information: those where the support held more than one token, or the token fell
   * outside it. Where the cut leaves one token and the engine drew it, u is V whatever the engine does.
   */
  informative: number;
  /** Anderson–Darling statistic and p-value of the informative u's against Uniform(0, 1). */
  ad: number;
  p_value: number;
  /** Kolmogorov–Smirnov distance and p-value, for reading. */
  ks_d: number;
  ks_p_value: number;
  /** Mean u: below ½ leans to the most likely tokens (cooler, greedier), above ½ to the less likely (hotter). */
  mean_u: number;
  /** Share of audited tokens outside the target's processed support (not among its top_k, or cut by top_p). */
  outside_share: number;
  alpha: number;
  outside_tolerance: number;
  /** p ≥ alpha and outside share ≤ tolerance */
  consistent: boolean;
}

/** A token the support's cut left alone and the engine drew: its u is V whatever the engine does. */
const uninformative = (p: PitInterval, outside = OUTSIDE_MASS) => p.below === 0 && p.mass >= 1 - outside - 1e-12;

/** The audit over every reply's PIT intervals: seeded u's of the informative tokens, their tests, their direction. */
export function samplingAudit(
  perReply: readonly (readonly PitInterval[] | null | undefined)[],
  seed: number,
  alpha = AUDIT_ALPHA,
  outsideTolerance = OUTSIDE_TOLERANCE,
): SamplingAuditResult | null {
  const intervals: PitInterval[] = [];
  let replies = 0;
  let tokens = 0;
  for (const r of perReply) {
    if (!r) continue;
    replies++;
    tokens += r.length;
    for (const p of r) if (!uninformative(p)) intervals.push(p);
  }
  if (tokens === 0) return null;
  const us = randomizedPits(intervals, seed);
  const ad = andersonDarlingUniform(us);
  const ks = ksUniform(us);
  const outsideShare = intervals.filter((p) => isOutside(p)).length / tokens;
  return {
    replies,
    tokens,
    informative: us.length,
    ad: ad.a2,
    p_value: ad.pValue,
    ks_d: ks.d,
    ks_p_value: ks.pValue,
    mean_u: us.length === 0 ? 0.5 : us.reduce((a, b) => a + b, 0) / us.length,
    outside_share: outsideShare,
    alpha,
    outside_tolerance: outsideTolerance,
    consistent: ad.pValue >= alpha && outsideShare <= outsideTolerance,
  };
}
