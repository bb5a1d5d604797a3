/** Prints the toy target's reply lengths and first-choice share under the protocol's sampling (a calibration aid). */

import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { Rng } from "../model/rng";
import { processDist, sampleFrom } from "../model/sampling";
import { SequenceState } from "../model/sequence-state";
import { buildToyModel, TARGET_PARAMS } from "../model/toy-model";

const tok = qwen3Tokenizer();
const beta = Number(process.argv[2] ?? TARGET_PARAMS.beta);
const t0 = Date.now();
const m = buildToyModel(tok, {
  ...TARGET_PARAMS,
  beta,
  eosScale: Number(process.argv[3] ?? TARGET_PARAMS.eosScale),
  copyWeight: Number(process.argv[4] ?? TARGET_PARAMS.copyWeight),
});
let td = 0n;
console.log("build ms", Date.now() - t0);
const prompts = [
  "What is the capital of France?",
  "Write a short poem about the sea.",
  "Explain recursion to a child.",
  "How do I sort a list in Python?",
];
const lens: number[] = [];
let tokens = 0,
  notFirst = 0,
  calls = 0;
const t1 = process.hrtime.bigint();
for (let s = 0; s < 200; s++) {
  const prompt = m.prompt(prompts[s % prompts.length]!);
  const st = new SequenceState(tok.encode(prompt));
  const rng = new Rng(s);
  let n = 0;
  for (; n < 2000; n++) {
    const a0 = process.hrtime.bigint();
    const d = m.target.dist(st);
    td += process.hrtime.bigint() - a0;
    calls++;
    const x = sampleFrom(processDist(d, { temperature: 0.7, topK: 20, topP: 0.8 }, m.floor), () => rng.next(), m.floor);
    tokens++;
    if (m.target.argmax(d) !== x) notFirst++;
    if (x === tok.eosId) break;
    st.push(x);
  }
  lens.push(n + 1);
  if (s < 3) console.log(JSON.stringify(tok.decode(st.tokens.slice(tok.encode(prompt).length))));
}
const us = Number(process.hrtime.bigint() - t1) / 1000 / calls;
lens.sort((a, b) => a - b);
console.log({
  beta,
  notFirstShare: notFirst / tokens,
  p50: lens[100],
  p90: lens[180],
  mean: tokens / 200,
  usPerToken: us,
  distUs: Number(td) / 1000 / calls,
});
