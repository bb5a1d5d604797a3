import { readFileSync } from "node:fs";
import { defaultTokenizer, type TargetTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";
import { Floor } from "./floor";
import { LanguageModel, type ModelParams } from "./language-model";
import { buildTables, type NgramTables } from "./ngram-tables";

/** What the chat template puts before a non-thinking reply; the corpus' replies are trained after it. */
export const REPLY_PREFIX = "<|im_start|>assistant\n<think>\n\n</think>\n\n";

export const TARGET_PARAMS: ModelParams = {
  maxOrder: 3,
  beta: 1.0,
  backoff: 1.5,
  copyWeight: 0.08,
  noise: 0.3,
  noiseSalt: 11,
  perturb: 0,
  perturbSalt: 0,
  eps: 2e-4,
  eosScale: 0.012,
  eosId: 151645,
};

/** A cheaper, perturbed copy of the target (as Qwen3-0.6B is of Qwen3-8B): shorter context, own noise, no copy head. */
export const DRAFT_PARAMS: ModelParams = { ...TARGET_PARAMS, maxOrder: 2, copyWeight: 0, noise: 1.8, noiseSalt: 29 };

/** An EAGLE-like head: the target's features, so a closer approximation with small noise of its own. */
export const EAGLE_PARAMS: ModelParams = { ...TARGET_PARAMS, noise: 2.4, noiseSalt: 47 };

/** The quantized attack: the target with perturbed logits (as FP8 weights perturb the real target's). */
export const QUANTIZED_PARAMS: ModelParams = { ...TARGET_PARAMS, perturb: 0.25, perturbSalt: 0x5eed };

export interface ToyModel {
  tokenizer: TargetTokenizer;
  tables: NgramTables;
  floor: Floor;
  target: LanguageModel;
  make(params: ModelParams): LanguageModel;
}

export function corpusReplies(): string[] {
  const text = readFileSync(new URL("./corpus.jsonl", import.meta.url), "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as string);
}

export function buildToyModel(tokenizer: TargetTokenizer, params: ModelParams = TARGET_PARAMS): ToyModel {
  const prefix = tokenizer.encode(`<|im_end|>\n${REPLY_PREFIX}`);
  const sequences = corpusReplies().map((r) => [...prefix, ...tokenizer.encode(r), tokenizer.eosId]);
  const tables = buildTables(sequences, tokenizer.vocabSize, TARGET_PARAMS.maxOrder);
  const floor = new Floor(tables.tokenCounts, tokenizer.specialIds, tokenizer.eosId);
  const make = (p: ModelParams) => new LanguageModel(tables, floor, p);
  return { tokenizer, tables, floor, target: make(params), make };
}

let shared: ToyModel | undefined;
/** The process-wide toy model (training takes about a second: do it once). */
export function defaultToyModel(): ToyModel {
  shared ??= buildToyModel(defaultTokenizer());
  return shared;
}
