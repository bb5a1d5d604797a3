import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { loadTargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { Rng } from "./rng";
import { processDist, sampleFrom } from "./sampling";
import { SequenceState } from "./sequence-state";
import { buildToyModel, DRAFT_PARAMS, defaultToyModel, type ToyModel } from "./toy-model";

const PROTOCOL_SAMPLING = { temperature: 0.7, topK: 20, topP: 0.8 };
let m: ToyModel;
beforeAll(() => {
  m = defaultToyModel();
});

function prompt(text: string): SequenceState {
  return new SequenceState(m.tokenizer.encode(m.prompt(text)));
}

describe("the toy target model", () => {
  it("is a distribution over the whole vocabulary: support plus the floor sum to one", () => {
    const d = m.target.dist(prompt("Tell me about rivers."));
    let support = 0;
    let floorInSupport = 0;
    for (let i = 0; i < d.ids.length; i++) {
      support += d.probs[i]!;
      floorInSupport += m.floor.weights[d.ids[i]!]!;
    }
    const total = support + d.eps * (1 - floorInSupport);
    expect(total).toBeCloseTo(1, 9);
    expect(m.floor.size).toBe(m.tokenizer.vocabSize);
    for (const id of [0, 151643, 151668, m.tokenizer.vocabSize - 1]) {
      expect(Math.log(m.target.prob(d, id))).toBeGreaterThan(Number.NEGATIVE_INFINITY);
    }
  });

  it("ranks every token: rank 1 is the argmax, ranks agree with top-k, and are total over the vocabulary", () => {
    const d = m.target.dist(prompt("How do magnets work?"));
    const top = m.target.top(d, 30);
    expect(top[0]!.id).toBe(m.target.argmax(d));
    top.forEach((t, i) => {
      if (i === 0 || top[i - 1]!.prob > t.prob) expect(m.target.rank(d, t.id)).toBe(i + 1);
    });
    const rare = m.floor.order[m.floor.order.length - 1]!;
    expect(m.target.rank(d, rare)).toBeGreaterThan(m.tokenizer.vocabSize - 100);
  });

  it("gives as top-k the k most likely tokens of the whole vocabulary (ties by id), for every model and k", () => {
    const models = [m.target, m.make(DRAFT_PARAMS)];
    const texts = ["How do magnets work?", "Write a haiku about tea.", "List three prime numbers.", "Hi"];
    for (const model of models) {
      for (const text of texts) {
        const state = prompt(text);
        for (let step = 0; step < 3; step++) {
          const d = model.dist(state);
          const all = Array.from({ length: m.floor.size }, (_, id) => ({ id, prob: model.prob(d, id) }));
          all.sort((a, b) => b.prob - a.prob || a.id - b.id);
          for (const k of [1, 5, 20, d.ids.length + 7]) expect(model.top(d, k)).toEqual(all.slice(0, k));
          // the scratch table it shares with dist is left clean: the same context gives the same distribution
          expect(model.dist(state)).toEqual(d);
          state.push(model.argmax(d));
        }
      }
    }
  });

  it("is deterministic from the context", () => {
    const a = m.target.dist(prompt("Same context"));
    const b = m.target.dist(prompt("Same context"));
    expect(a).toEqual(b);
    const c = m.target.dist(prompt("Another context entirely"));
    expect(c.ids.length).toBeGreaterThan(5);
  });

  it("writes replies that end on their own, with 13-15% of sampled tokens not the first choice", () => {
    let tokens = 0;
    let notFirst = 0;
    const lengths: number[] = [];
    const rng = new Rng(7);
    for (let r = 0; r < 80; r++) {
      const st = prompt(`Question number ${r}: what should I know?`);
      let n = 0;
      for (; n < 3000; n++) {
        const d = m.target.dist(st);
        const x = sampleFrom(processDist(d, PROTOCOL_SAMPLING, m.floor), () => rng.next(), m.floor);
        tokens++;
        if (x !== m.target.argmax(d)) notFirst++;
        if (x === m.tokenizer.eosId) break;
        st.push(x);
      }
      lengths.push(n + 1);
    }
    lengths.sort((a, b) => a - b);
    expect(lengths[lengths.length - 1]).toBeLessThan(3000);
    expect(lengths[40]).toBeGreaterThan(40);
    expect(lengths[40]).toBeLessThan(400);
    // 80 replies hold ~15K tokens: the share's standard error is under 0.3 points, so allow 12-16%.
    expect(notFirst / tokens).toBeGreaterThan(0.12);
    expect(notFirst / tokens).toBeLessThan(0.16);
  });
});

describe("the toy target model on another tokenizer (the fixture's)", () => {
  it("trains in the fixture's vocabulary after its template's reply prefix, and ends replies with its eos", () => {
    const f = buildToyModel(loadTargetTokenizer(FIXTURE_TOKENIZER_DIR));
    expect(f.floor.size).toBe(f.tokenizer.vocabSize);
    expect(f.floor.eosId).toBe(f.tokenizer.eosId);
    expect(f.marks.replyPrefix).toBe(m.marks.replyPrefix);
    const rng = new Rng(11);
    const lengths: number[] = [];
    for (let r = 0; r < 30; r++) {
      const st = new SequenceState(f.tokenizer.encode(f.prompt(`Question number ${r}: what should I know?`)));
      let n = 0;
      for (; n < 4000; n++) {
        const x = sampleFrom(processDist(f.target.dist(st), PROTOCOL_SAMPLING, f.floor), () => rng.next(), f.floor);
        if (x === f.tokenizer.eosId) break;
        expect(x).toBeLessThan(f.tokenizer.vocabSize);
        st.push(x);
      }
      lengths.push(n);
    }
    lengths.sort((a, b) => a - b);
    expect(lengths[lengths.length - 1]).toBeLessThan(4000);
    expect(lengths[15]).toBeGreaterThan(40);
  });
});
