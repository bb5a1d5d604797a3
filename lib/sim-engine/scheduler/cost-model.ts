import type { SpeculatorMethod } from "../speculators/drafters";

/**
 * GPU time of one engine step, in seconds at SIM_SPEED 1. A step runs every scheduled sequence in one batch:
 * a fixed overhead (weights read, launches), a cost per decoded or verified token, a cost per prefilled token
 * plus its attention over earlier context, and a cost per context token read by decoding sequences. Calibrated
 * for Qwen3-8B on a B200: a solo lane decodes about 150 tokens/s; a verify step costs what its (k+1) tokens per
 * sequence cost, so speculation gains about 2x alone and little at 20 lanes.
 */
export interface CostModel {
  stepOverheadS: number;
  perDecodeTokenS: number;
  perPrefillTokenS: number;
  /** Prefill attention: per new token, per earlier token it attends to. */
  perPrefillPairS: number;
  perContextTokenS: number;
  drafter: Record<SpeculatorMethod, { perDraftStepS: number; perSequenceDraftS: number; perPrefillTokenS: number }>;
}

export const QWEN3_8B_B200: CostModel = {
  stepOverheadS: 0.0059,
  perDecodeTokenS: 0.0003,
  perPrefillTokenS: 0.000035,
  perPrefillPairS: 1e-9,
  perContextTokenS: 2e-8,
  drafter: {
    ngram: { perDraftStepS: 0, perSequenceDraftS: 0.00002, perPrefillTokenS: 0 },
    draft: { perDraftStepS: 0.0008, perSequenceDraftS: 0.00004, perPrefillTokenS: 0.000004 },
    eagle: { perDraftStepS: 0.0004, perSequenceDraftS: 0.00002, perPrefillTokenS: 0.000002 },
  },
};

export interface StepWork {
  /** Tokens scored by the target for decoding sequences (1 each, or drafted + 1 when verifying). */
  decodeTokens: number;
  /** Context tokens of the decoding sequences (their KV read this step). */
  contextTokens: number;
  /** Prefill chunks: new tokens and where each chunk starts. */
  prefill: { tokens: number; start: number }[];
  /** Sequences that drafted this step, and the most drafts any of them made (draft steps run in lockstep). */
  draftSequences: number;
  draftDepth: number;
}

export function stepSeconds(cost: CostModel, work: StepWork, method: SpeculatorMethod | null): number {
  let t = cost.stepOverheadS + cost.perDecodeTokenS * work.decodeTokens + cost.perContextTokenS * work.contextTokens;
  let prefillTokens = 0;
  for (const c of work.prefill) {
    prefillTokens += c.tokens;
    t += cost.perPrefillTokenS * c.tokens + cost.perPrefillPairS * c.tokens * (c.start + c.tokens / 2);
  }
  if (method) {
    const d = cost.drafter[method];
    t += work.draftDepth * (d.perDraftStepS + d.perSequenceDraftS * work.draftSequences);
    t += d.perPrefillTokenS * prefillTokens;
  }
  return t;
}
