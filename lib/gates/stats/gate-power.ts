import type { TaskSpec } from "@/lib/protocol";
import { type GapEstimate, gapPasses } from "./equivalence";
import { fidelity } from "./fidelity";
import { fidelityPasses, greedyPasses, sampledGap } from "./gate-verdicts";
import { greedyAgreement } from "./greedy-agreement";
import { AUDIT_ALPHA, OUTSIDE_TOLERANCE, type PitInterval, samplingAudit } from "./sampling-audit";
import { seededRandom } from "./seeded-random";

/**
 * The gates' power (issue 17): how often each check catches an engine at a profile's sample sizes, estimated by
 * drawing that many replies, fixed texts and probes, again and again, from pools measured once, and judging every
 * draw with the judge's own statistics and limits (stats/gate-verdicts.ts, samplingAudit).
 *
 * Draws are without replacement wherever a pool holds at least a draw's size: an n-subset of an iid pool is itself an
 * iid sample of the engine, so the share of draws a check catches is an unbiased estimate of its power at n (the
 * draws overlap, so its precision is that of the pool, not of the number of draws). Where the pool is smaller than n
 * (quick runs) the draws are a bootstrap, with replacement: a replica of the same reply then enters the sampling audit
 * twice, which it reads as more evidence than it is.
 */

export const POWER_CHECKS = ["likelihood", "argmax", "audit", "fidelity", "greedy", "gates"] as const;
export type PowerCheck = (typeof POWER_CHECKS)[number];

/** The checks that gate under protocol v1 (the sampling audit is shown, never gated): `gates` fires when any does. */
const GATED = ["likelihood", "argmax", "fidelity", "greedy"] as const;

/** The detection rate the protocol's 95% confidence asks of a check against an attack it is meant to catch. */
export const POWER_TARGET = 0.95;

/** A sampled reply as the stock engine scored it (judge-evaluation's ReplyScore). */
export interface PooledReply {
  tokens: number;
  logprobSum: number;
  notFirstChoice: number;
  pit?: readonly PitInterval[];
}

/** One fixed text as both engines scored it (its tokens' log-probabilities), or one probe as both answered it. */
export interface PairedValues {
  candidate: readonly number[];
  stock: readonly number[];
}

export interface PowerPools {
  /** The candidate's sampled replies, scored by the stock engine. */
  candidate: readonly PooledReply[];
  /** The stock engine's own, scored by itself: the other side of every gap. */
  stock: readonly PooledReply[];
  /** Fixed texts both engines scored: the fidelity check, where it applies. */
  texts?: readonly PairedValues[];
  /** Greedy probes both engines answered, in the target's token ids: greedy agreement, where it applies. */
  probes?: readonly PairedValues[];
}

/** A profile's sizes: sampled replies per engine, fixed texts, greedy probes. */
export interface PowerSizes {
  replies: number;
  texts: number;
  probes: number;
}

/** The judge's limits for one task (lib/protocol), and the audit's level. */
export interface PowerLimits {
  z: number;
  likelihoodBound: number;
  argmaxBound: number;
  fidelityCeiling: number;
  greedyFloor: number | null;
  auditAlpha: number;
  outsideTolerance: number;
}

/** A task's limits as the judge applies them (build-record.ts), with the sampling audit's defaults (judge-evaluation.ts). */
export function powerLimits(task: TaskSpec, z: number): PowerLimits {
  return {
    z,
    likelihoodBound: task.gates.likelihoodBound.value,
    argmaxBound: task.gates.argmaxBound.value,
    fidelityCeiling: task.gates.fidelityCeiling.value,
    greedyFloor: task.gates.greedyAgreementFloor.value,
    auditAlpha: AUDIT_ALPHA,
    outsideTolerance: OUTSIDE_TOLERANCE,
  };
}

export type Resampling = "subsample" | "bootstrap";

export interface CheckRate {
  detected: number;
  draws: number;
  rate: number;
}

export interface PowerEstimate {
  /** Only the checks that apply: fidelity with texts, greedy with probes and a floor. */
  rates: Partial<Record<PowerCheck, CheckRate>>;
  resampling: { replies: Resampling; texts: Resampling | null; probes: Resampling | null };
}

/** A stable 32-bit seed from the run's seed, what is drawn, and the draw's number. */
function streamSeed(seed: number, what: string, draw: number): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (const ch of `${what}:${draw}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
}

const resamplingOf = (n: number, pool: number): Resampling => (n <= pool ? "subsample" : "bootstrap");

/**
 * `n` indices into a pool of `size`: a uniformly random n-subset (partial Fisher–Yates) when n ≤ size, else n draws
 * with replacement. Depends on the seed alone, so pools of one size share their draws (attacks of several strengths
 * are judged on the same draws, and their rates move together with the strength rather than with the draws).
 */
export function drawIndices(n: number, size: number, seed: number): number[] {
  if (size <= 0) throw new Error("cannot draw from an empty pool");
  const rand = seededRandom(seed);
  if (n > size) return Array.from({ length: n }, () => Math.floor(rand() * size));
  // Fisher–Yates over the identity permutation, holding only the entries it has moved: O(n) for a pool of any size
  const moved = new Map<number, number>();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rand() * (size - i));
    out.push(moved.get(j) ?? j);
    moved.set(j, moved.get(i) ?? i);
  }
  return out;
}

const pick = <T>(pool: readonly T[], indices: readonly number[]) => indices.map((i) => pool[i]!);

/** Which checks one draw's figures fail, as the judge would have it (the audit: flagged, not consistent). */
function judgeDraw(
  draw: { candidate: PooledReply[]; stock: PooledReply[]; texts?: PairedValues[]; probes?: PairedValues[] },
  limits: PowerLimits,
  auditSeed: number,
): Partial<Record<PowerCheck, boolean>> {
  const likelihood = sampledGap(draw.candidate, draw.stock, (s) => s.logprobSum);
  const argmax = sampledGap(draw.candidate, draw.stock, (s) => s.notFirstChoice);
  const audit = samplingAudit(
    draw.candidate.map((r) => r.pit),
    auditSeed,
    limits.auditAlpha,
    limits.outsideTolerance,
  );
  const out: Partial<Record<PowerCheck, boolean>> = {
    likelihood: !(likelihood !== null && gapPasses(likelihood.gap, likelihood.se, limits.likelihoodBound, limits.z)),
    argmax: !(argmax !== null && gapPasses(argmax.gap, argmax.se, limits.argmaxBound, limits.z)),
    // an unaudited draw is not flagged: the audit is shown, never gated
    audit: audit !== null && !audit.consistent,
  };
  if (draw.texts) {
    const f = fidelity(
      draw.texts.map((t) => t.candidate),
      draw.texts.map((t) => t.stock),
    ).fidelity;
    out.fidelity = !fidelityPasses(f, limits.fidelityCeiling);
  }
  if (draw.probes && limits.greedyFloor !== null) {
    const g = greedyAgreement(
      draw.probes.map((p) => p.candidate),
      draw.probes.map((p) => p.stock),
    ).agreement;
    out.greedy = !greedyPasses(g, limits.greedyFloor);
  }
  out.gates = GATED.some((c) => out[c] === true);
  return out;
}

/**
 * Each check's detection rate over `resamples` draws of the profile's sizes from the pools. Run on two honest pools
 * (the stock engine as candidate), the rates are the checks' false alarms.
 */
export function estimatePower(
  pools: PowerPools,
  sizes: PowerSizes,
  limits: PowerLimits,
  options: { resamples: number; seed: number },
): PowerEstimate {
  if (!(options.resamples >= 1)) throw new Error("at least one resample");
  if (pools.candidate.length === 0 || pools.stock.length === 0) throw new Error("a reply pool is empty");
  const { seed, resamples } = options;
  const detected = new Map<PowerCheck, number>();
  for (let r = 0; r < resamples; r++) {
    const draw = {
      candidate: pick(pools.candidate, drawIndices(sizes.replies, pools.candidate.length, streamSeed(seed, "c", r))),
      stock: pick(pools.stock, drawIndices(sizes.replies, pools.stock.length, streamSeed(seed, "s", r))),
      ...(pools.texts?.length
        ? { texts: pick(pools.texts, drawIndices(sizes.texts, pools.texts.length, streamSeed(seed, "t", r))) }
        : {}),
      ...(pools.probes?.length
        ? { probes: pick(pools.probes, drawIndices(sizes.probes, pools.probes.length, streamSeed(seed, "p", r))) }
        : {}),
    };
    for (const [check, fired] of Object.entries(judgeDraw(draw, limits, streamSeed(seed, "a", r)))) {
      detected.set(check as PowerCheck, (detected.get(check as PowerCheck) ?? 0) + (fired ? 1 : 0));
    }
  }
  const rates: PowerEstimate["rates"] = {};
  for (const check of POWER_CHECKS) {
    const d = detected.get(check);
    if (d !== undefined) rates[check] = { detected: d, draws: resamples, rate: d / resamples };
  }
  return {
    rates,
    resampling: {
      replies: resamplingOf(sizes.replies, Math.min(pools.candidate.length, pools.stock.length)),
      texts: pools.texts?.length ? resamplingOf(sizes.texts, pools.texts.length) : null,
      probes: pools.probes?.length ? resamplingOf(sizes.probes, pools.probes.length) : null,
    },
  };
}

/** What the whole pools show, undrawn: the size of the attack as each check measures it. */
export interface PoolFigures {
  likelihood: GapEstimate | null;
  argmax: GapEstimate | null;
  /** The audit's p-value over the whole candidate pool (it only falls as the pool grows: read it beside the rates). */
  auditP: number | null;
  fidelity: number | null;
  greedy: number | null;
}

export function poolFigures(pools: PowerPools, limits: PowerLimits, seed: number): PoolFigures {
  const audit = samplingAudit(
    pools.candidate.map((r) => r.pit),
    seed,
    limits.auditAlpha,
    limits.outsideTolerance,
  );
  return {
    likelihood: sampledGap(pools.candidate, pools.stock, (s) => s.logprobSum),
    argmax: sampledGap(pools.candidate, pools.stock, (s) => s.notFirstChoice),
    auditP: audit?.p_value ?? null,
    fidelity: pools.texts?.length
      ? fidelity(
          pools.texts.map((t) => t.candidate),
          pools.texts.map((t) => t.stock),
        ).fidelity
      : null,
    greedy: pools.probes?.length
      ? greedyAgreement(
          pools.probes.map((p) => p.candidate),
          pools.probes.map((p) => p.stock),
        ).agreement
      : null,
  };
}

/** A sweep's point: an attack's strength and a check's detection rate against it (null: the check does not apply). */
export interface SweepPoint {
  strength: number;
  rate: number | null;
}

/**
 * The weakest strength of a sweep (ordered weakest first) from which on every stronger one is caught at least
 * `target` of the time, or null when the strongest is not (or a rate is missing). On a monotone sweep this is the
 * weakest strength caught; a weaker one caught by chance beside a stronger one missed does not count. `atWeakest`:
 * the sweep's weakest strength is caught already, so the check's own threshold lies at or below it.
 */
export function smallestCaught(
  sweep: readonly SweepPoint[],
  target = POWER_TARGET,
): { strength: number; atWeakest: boolean } | null {
  let from: number | null = null;
  for (let i = sweep.length - 1; i >= 0; i--) {
    const rate = sweep[i]!.rate;
    if (rate === null || rate < target) break;
    from = i;
  }
  return from === null ? null : { strength: sweep[from]!.strength, atWeakest: from === 0 };
}

/**
 * A family's strengths on each side of its honest value (temperature scale 1, the request's top_k, quantization 0),
 * each side ordered from the honest value outwards: weakest first. Points at the honest value are left out.
 */
export function sidesOf<T extends { strength: number }>(
  points: readonly T[],
  honest: number,
): { below: T[]; above: T[] } {
  return {
    below: points.filter((p) => p.strength < honest).sort((a, b) => b.strength - a.strength),
    above: points.filter((p) => p.strength > honest).sort((a, b) => a.strength - b.strength),
  };
}
