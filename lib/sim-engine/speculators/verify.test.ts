import { beforeAll, describe, expect, it } from "vitest";
import { Rng } from "../model/rng";
import type { SamplingParams } from "../model/sampling";
import { SequenceState } from "../model/sequence-state";
import { DRAFT_PARAMS, defaultToyModel, EAGLE_PARAMS, type ToyModel } from "../model/toy-model";
import { chiSquareTwoSample } from "../stats/chi-square";
import { type Drafter, ModelDrafter, NgramDrafter } from "./drafters";
import { type AcceptRule, plainStep, type StepContext, speculativeStep } from "./verify";

let m: ToyModel;
let base: number[];
beforeAll(() => {
  m = defaultToyModel();
  // A context whose reply repeats a phrase of the prompt, so prompt lookup proposes real drafts.
  base = m.tokenizer.encode(
    `${m.prompt("The coin started heads up, so after an odd number of flips it is tails. Explain.")}The coin started heads`,
  );
});

const SAMPLES = 5000;

/** The first three tokens produced after the fixed context, as one category. */
function sampleTriples(
  sp: SamplingParams,
  step: (state: SequenceState, ctx: StepContext) => void,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (let s = 0; s < SAMPLES; s++) {
    const state = new SequenceState(base);
    const ctx: StepContext = {
      target: m.target,
      floor: m.floor,
      sampling: sp,
      rng: new Rng(s * 7919 + 13),
      eosId: m.tokenizer.eosId,
      budget: 3,
    };
    while (state.length < base.length + 3) {
      ctx.budget = base.length + 3 - state.length;
      step(state, ctx);
    }
    const key = state.tokens.slice(base.length, base.length + 3).join(",");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function viaSpec(drafter: Drafter, rule: AcceptRule) {
  return (state: SequenceState, ctx: StepContext) => speculativeStep(state, ctx, drafter, 3, rule);
}

describe("speculative decoding by modified rejection sampling", () => {
  const sp: SamplingParams = { temperature: 1, topK: 20, topP: 0.95 };
  let stock: Map<string, number>;
  beforeAll(() => {
    stock = sampleTriples(sp, (state, ctx) => plainStep(state, ctx));
  });

  it("keeps the target's distribution exactly with a draft model, an EAGLE-like head and prompt lookup", () => {
    const exact: AcceptRule = { kind: "exact" };
    for (const drafter of [
      new ModelDrafter("draft", m.make(DRAFT_PARAMS), m.floor),
      new ModelDrafter("eagle", m.make(EAGLE_PARAMS), m.floor),
      new NgramDrafter(),
    ]) {
      const spec = sampleTriples(sp, viaSpec(drafter, exact));
      const test = chiSquareTwoSample(stock, spec);
      expect(test.df, drafter.method).toBeGreaterThan(10);
      expect(test.pValue, `${drafter.method}: chi2 ${test.statistic.toFixed(1)} on ${test.df} df`).toBeGreaterThan(
        1e-3,
      );
    }
  });

  it("moves the distribution under loose acceptance", () => {
    const loose = sampleTriples(
      sp,
      viaSpec(new ModelDrafter("eagle", m.make(EAGLE_PARAMS), m.floor), { kind: "loose", threshold: 0.3 }),
    );
    const test = chiSquareTwoSample(stock, loose);
    expect(test.pValue).toBeLessThan(1e-6);
  });

  it("follows the argmax chain at temperature 0 whatever the drafter proposes", () => {
    const greedy: SamplingParams = { temperature: 0, topK: 0, topP: 1 };
    const chain = new SequenceState(base);
    for (let i = 0; i < 40; i++) chain.push(m.target.argmax(m.target.dist(chain)));
    for (const drafter of [new ModelDrafter("draft", m.make(DRAFT_PARAMS), m.floor), new NgramDrafter()]) {
      const state = new SequenceState(base);
      const ctx: StepContext = {
        target: m.target,
        floor: m.floor,
        sampling: greedy,
        rng: new Rng(1),
        eosId: -1,
        budget: 40,
      };
      while (state.length < base.length + 40) {
        ctx.budget = base.length + 40 - state.length;
        speculativeStep(state, ctx, drafter, 4, { kind: "exact" });
      }
      expect(state.tokens.slice(0, base.length + 40)).toEqual(chain.tokens);
    }
  });
});
