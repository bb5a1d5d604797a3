import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { type TemplateMarks, templateMarks } from "@/lib/tokenizer/template-marks";
import { encodedCorpus } from "./corpus";
import { Floor } from "./floor";
import { LanguageModel, type ModelParams } from "./language-model";
import { buildTables, type NgramTables } from "./ngram-tables";

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
};

/** A cheaper, perturbed copy of the target (as Qwen3-0.6B is of Qwen3-8B): shorter context, own noise, no copy head. */
export const DRAFT_PARAMS: ModelParams = { ...TARGET_PARAMS, maxOrder: 2, copyWeight: 0, noise: 1.8, noiseSalt: 29 };

/** An EAGLE-like head: the target's features, so a closer approximation with small noise of its own. */
export const EAGLE_PARAMS: ModelParams = { ...TARGET_PARAMS, noise: 2.4, noiseSalt: 47 };

/** The quantized attack: the target with perturbed logits (as FP8 weights perturb the real target's). */
export const QUANTIZED_PARAMS: ModelParams = { ...TARGET_PARAMS, perturb: 0.25, perturbSalt: 0x5eed };

/** The quantized attack at `scale` times its perturbation (the same hashed direction): 1 is QUANTIZED_PARAMS. */
export function quantizedParams(scale: number): ModelParams {
  return { ...QUANTIZED_PARAMS, perturb: QUANTIZED_PARAMS.perturb * scale };
}

export interface ToyModel {
  tokenizer: TargetTokenizer;
  template: ChatTemplate;
  /** What the target's template writes around a message; the corpus' replies are trained after `replyPrefix`. */
  marks: TemplateMarks;
  /** A one-turn prompt as the template renders it, ready for the reply (non-thinking). */
  prompt(userText: string): string;
  tables: NgramTables;
  floor: Floor;
  target: LanguageModel;
  make(params: ModelParams): LanguageModel;
}

/**
 * Trains the toy target on the corpus' replies, each after the end of a user message and the generation prompt as
 * the target's own template writes them, and ended by the tokenizer's eos: the model learns to answer, and to stop,
 * in the target's vocabulary.
 */
export function buildToyModel(tokenizer: TargetTokenizer, params: ModelParams = TARGET_PARAMS): ToyModel {
  const template = new ChatTemplate(tokenizer);
  const marks = templateMarks(template, tokenizer);
  const prefix = tokenizer.encode(marks.replyPrefix);
  const sequences = encodedCorpus(tokenizer).map((ids) => [...prefix, ...ids, tokenizer.eosId]);
  const tables = buildTables(sequences, tokenizer.vocabSize, TARGET_PARAMS.maxOrder);
  const floor = new Floor(tables.tokenCounts, tokenizer.specialIds, tokenizer.eosId);
  const make = (p: ModelParams) => new LanguageModel(tables, floor, p);
  const prompt = (userText: string) =>
    template.render([{ role: "user", content: userText }], { addGenerationPrompt: true, enableThinking: false });
  return { tokenizer, template, marks, prompt, tables, floor, target: make(params), make };
}

let shared: ToyModel | undefined;
/** The process-wide toy model on the packaged Qwen3 tokenizer (training takes about a second: do it once). */
export function defaultToyModel(): ToyModel {
  shared ??= buildToyModel(qwen3Tokenizer());
  return shared;
}
