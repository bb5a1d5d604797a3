import { z } from "zod";
import type { RawCandidate } from "../stats/sampling-audit";

const logprobEntry = z.object({
  logprob: z.number(),
  rank: z.number().int().nullable().optional(),
  decoded_token: z.string().nullable().optional(),
});

/** vLLM's chat completion with `prompt_logprobs`: null for the first prompt token, then token id → logprob per position. */
export const promptLogprobsResponseSchema = z.object({
  prompt_logprobs: z.array(z.record(z.string(), logprobEntry).nullable()),
  /** vLLM returns the prompt's ids when asked (`return_token_ids`); used to check the tokenization when present. */
  prompt_token_ids: z.array(z.number().int()).nullable().optional(),
});

export type PromptLogprobsResponse = z.infer<typeof promptLogprobsResponseSchema>;

export interface TokenScore {
  logprob: number;
  /** 1 for the target's first choice; null when the engine did not report ranks. */
  rank: number | null;
}

/**
 * The log-probability and rank of each prompt token at positions [from, ids.length), read from the entry keyed by
 * that token's id. Throws when the engine's positions do not line up with the prompt as the arena tokenized it.
 */
export function promptTokenScores(
  response: PromptLogprobsResponse,
  ids: readonly number[],
  from: number,
): TokenScore[] {
  const positions = response.prompt_logprobs;
  if (response.prompt_token_ids && !sameIds(response.prompt_token_ids, ids)) {
    throw new Error("the engine tokenized the prompt differently from the target's tokenizer");
  }
  if (positions.length !== ids.length) {
    throw new Error(`prompt_logprobs has ${positions.length} positions for a prompt of ${ids.length} tokens`);
  }
  if (from < 1) throw new Error("the first prompt token has no log-probability");
  const scores: TokenScore[] = [];
  for (let i = from; i < ids.length; i++) {
    const entry = positions[i]?.[String(ids[i])];
    if (!entry) throw new Error(`prompt_logprobs position ${i} has no entry for token ${ids[i]}`);
    if (!Number.isFinite(entry.logprob) || entry.logprob > 1e-6) {
      throw new Error(`prompt_logprobs position ${i} has log-probability ${entry.logprob}`);
    }
    scores.push({ logprob: entry.logprob, rank: entry.rank ?? null });
  }
  return scores;
}

/**
 * At each prompt position in [from, ids.length), the target's `k` most likely tokens with their raw log-probabilities
 * (the entry's other tokens: vLLM adds the prompt's own token when it ranks below them). Call after
 * `promptTokenScores` has checked that the positions line up.
 */
export function promptTopCandidates(
  response: PromptLogprobsResponse,
  ids: readonly number[],
  from: number,
  k: number,
): RawCandidate[][] {
  const out: RawCandidate[][] = [];
  for (let i = from; i < ids.length; i++) {
    const entry = response.prompt_logprobs[i];
    if (!entry) throw new Error(`prompt_logprobs position ${i} is empty`);
    const candidates = Object.entries(entry)
      .map(([id, e]) => ({ id: Number(id), logprob: e.logprob }))
      .filter((c) => Number.isInteger(c.id) && Number.isFinite(c.logprob))
      .sort((a, b) => b.logprob - a.logprob || a.id - b.id);
    if (candidates.length < k) {
      throw new Error(`prompt_logprobs position ${i} holds ${candidates.length} tokens, ${k} were asked`);
    }
    out.push(candidates.slice(0, k));
  }
  return out;
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
