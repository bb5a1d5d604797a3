import type { Floor } from "../model/floor";
import type { LanguageModel } from "../model/language-model";
import type { Rng } from "../model/rng";
import { probOf, processDist, residual, type SamplingDist, type SamplingParams, sampleFrom } from "../model/sampling";
import type { SequenceState } from "../model/sequence-state";
import type { Drafter } from "./drafters";

/**
 * `exact`: modified rejection sampling (lossless). `loose`: the attack — typical acceptance (Medusa's rule) of
 * greedy drafts: a draft token is kept whenever the target gives it more than min(threshold, δ·e^(−H(p))), and a
 * rejected position is drawn from p itself. It drifts the output toward the draft's first choices.
 */
export type AcceptRule = { kind: "exact" } | { kind: "loose"; threshold: number };

/** Medusa's posterior threshold δ; `threshold` plays its ε (posterior alpha). */
const TYPICAL_DELTA = 0.09;

function entropy(p: SamplingDist): number {
  let h = 0;
  for (const x of p.probs) if (x > 0) h -= x * Math.log(x);
  return h;
}

export interface StepResult {
  /** Tokens appended to the state this step, the end token included when produced. */
  tokens: number[];
  drafted: number;
  /** Per draft position, whether it was accepted. */
  acceptedAt: boolean[];
  /** Positions the target scored this step (the verify width: drafted + 1, or 1 without drafts). */
  verified: number;
}

export interface StepContext {
  target: LanguageModel;
  floor: Floor;
  sampling: SamplingParams;
  rng: Rng;
  eosId: number;
  /** Tokens the request may still produce (max_tokens minus those already produced). */
  budget: number;
}

/** One decode step without speculation: one token from the target under the request's sampling. */
export function plainStep(state: SequenceState, ctx: StepContext): StepResult {
  const p = processDist(ctx.target.dist(state), ctx.sampling, ctx.floor);
  const x = sampleFrom(p, () => ctx.rng.next(), ctx.floor);
  state.push(x);
  return { tokens: [x], drafted: 0, acceptedAt: [], verified: 1 };
}

function pointMass(x: number, like: SamplingDist): SamplingDist {
  return { ids: [x], probs: [1], bucketAlpha: 0, invT: like.invT };
}

/**
 * One speculative step: draft up to k tokens, score every draft position with the target, accept by the rule,
 * and on the first rejection draw from norm(max(0, p − q)); when all are accepted draw a bonus token from p.
 * Under the exact rule the produced tokens are distributed exactly as the target's own sampling.
 */
export function speculativeStep(
  state: SequenceState,
  ctx: StepContext,
  drafter: Drafter,
  k: number,
  rule: AcceptRule,
): StepResult {
  const width = Math.max(0, Math.min(k, ctx.budget - 1));
  // The loose attack drafts greedily, as typical-acceptance deployments do.
  const draftSampling = rule.kind === "loose" ? { ...ctx.sampling, temperature: 0 } : ctx.sampling;
  const proposal = width > 0 ? drafter.propose(state, width, draftSampling, ctx.rng) : { tokens: [], dists: [] };
  if (proposal.tokens.length === 0) return plainStep(state, ctx);
  const out: number[] = [];
  const acceptedAt: boolean[] = [];
  const next = () => ctx.rng.next();
  for (let i = 0; i < proposal.tokens.length; i++) {
    const p = processDist(ctx.target.dist(state), ctx.sampling, ctx.floor);
    const x = proposal.tokens[i]!;
    const q = proposal.dists[i] ?? pointMass(x, p);
    const px = probOf(p, x, ctx.floor);
    const qx = probOf(q, x, ctx.floor);
    const ratio = qx > 0 ? px / qx : 0;
    const accept =
      rule.kind === "exact"
        ? next() < Math.min(1, ratio)
        : px > Math.min(rule.threshold, TYPICAL_DELTA * Math.exp(-entropy(p)));
    if (accept) {
      acceptedAt.push(true);
      out.push(x);
      state.push(x);
      if (x === ctx.eosId) return finish(out, proposal.tokens.length, acceptedAt);
      continue;
    }
    const y = sampleFrom(rule.kind === "exact" ? residual(p, q, ctx.floor) : p, next, ctx.floor);
    out.push(y);
    state.push(y);
    while (acceptedAt.length < proposal.tokens.length) acceptedAt.push(false);
    return finish(out, proposal.tokens.length, acceptedAt);
  }
  const p = processDist(ctx.target.dist(state), ctx.sampling, ctx.floor);
  const y = sampleFrom(p, next, ctx.floor);
  out.push(y);
  state.push(y);
  return finish(out, proposal.tokens.length, acceptedAt);
}

function finish(tokens: number[], drafted: number, acceptedAt: boolean[]): StepResult {
  while (acceptedAt.length < drafted) acceptedAt.push(false);
  return { tokens, drafted, acceptedAt, verified: drafted + 1 };
}
