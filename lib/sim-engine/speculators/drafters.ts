import type { Floor } from "../model/floor";
import type { LanguageModel } from "../model/language-model";
import type { Rng } from "../model/rng";
import { processDist, type SamplingDist, type SamplingParams, sampleFrom } from "../model/sampling";
import type { SequenceState } from "../model/sequence-state";

export const SPECULATOR_METHODS = ["ngram", "draft", "eagle"] as const;
export type SpeculatorMethod = (typeof SPECULATOR_METHODS)[number];

/** Draft tokens with the distribution each was drawn from (null: a deterministic proposal, a point mass). */
export interface Proposal {
  tokens: number[];
  dists: (SamplingDist | null)[];
}

export interface Drafter {
  readonly method: SpeculatorMethod;
  /** Proposes up to k tokens after the state's end; leaves the state as it found it. */
  propose(state: SequenceState, k: number, sampling: SamplingParams, rng: Rng): Proposal;
}

/** Prompt lookup: copy what followed the latest earlier occurrence of the current suffix. */
export class NgramDrafter implements Drafter {
  readonly method = "ngram" as const;
  propose(state: SequenceState, k: number): Proposal {
    const tokens = state.lookup(k);
    return { tokens, dists: tokens.map(() => null) };
  }
}

/** A model drafter (a draft model or an EAGLE-like head): samples k tokens autoregressively from its own distribution. */
export class ModelDrafter implements Drafter {
  constructor(
    readonly method: "draft" | "eagle",
    private readonly model: LanguageModel,
    private readonly floor: Floor,
  ) {}

  propose(state: SequenceState, k: number, sampling: SamplingParams, rng: Rng): Proposal {
    const start = state.length;
    const tokens: number[] = [];
    const dists: SamplingDist[] = [];
    for (let i = 0; i < k; i++) {
      const q = processDist(this.model.dist(state), sampling, this.floor);
      const x = sampleFrom(q, () => rng.next(), this.floor);
      tokens.push(x);
      dists.push(q);
      state.push(x);
    }
    state.truncate(start);
    return { tokens, dists };
  }
}
