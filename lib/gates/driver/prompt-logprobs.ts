import { z } from "zod";
import type { RawCandidate } from "../stats/sampling-audit";

export interface LogprobEntry {
  logprob: number;
  rank?: number | null;
  decoded_token?: string | null;
}

/** vLLM's chat completion with `prompt_logprobs`: null for the first prompt token, then token id → logprob per position. */
export interface PromptLogprobsResponse {
  prompt_logprobs: (Record<string, LogprobEntry> | null)[];
  /** vLLM returns the prompt's ids when asked (`return_token_ids`); used to check the tokenization when present. */
  prompt_token_ids?: number[] | null;
}

const envelopeSchema = z.object({
  prompt_logprobs: z.array(z.unknown(), { error: "prompt_logprobs: expected an array" }),
  prompt_token_ids: z.array(z.number().int()).nullable().optional(),
});

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with one position's entry (its path's tail and why), or null: no string is made for a good one. */
function entryProblem(entry: unknown): string | null {
  if (!isRecord(entry)) return ": expected an object with a logprob";
  if (typeof entry.logprob !== "number") return ".logprob: expected a number";
  const rank = entry.rank;
  if (rank !== undefined && rank !== null && !Number.isInteger(rank)) return ".rank: expected an integer or null";
  const decoded = entry.decoded_token;
  if (decoded !== undefined && decoded !== null && typeof decoded !== "string") {
    return ".decoded_token: expected a string or null";
  }
  return null;
}

/**
 * Reads an engine's answer to a `prompt_logprobs` request, refusing any other shape with the path of what is wrong.
 * A top-20 answer holds 20 entries at each of up to a few thousand positions: the entries are checked in place, in
 * one loop, rather than copied by a schema (a third of the CPU of a scoring request at the checks went to that copy).
 */
export function parsePromptLogprobsResponse(body: unknown): PromptLogprobsResponse {
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) {
    const issue = envelope.error.issues[0]!;
    throw new Error(`the engine's answer: ${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  const positions = envelope.data.prompt_logprobs;
  for (let i = 0; i < positions.length; i++) {
    const position = positions[i];
    if (position === null) continue;
    if (!isRecord(position)) throw new Error(`prompt_logprobs[${i}]: expected an object of token ids, or null`);
    for (const id in position) {
      const why = entryProblem(position[id]);
      if (why) throw new Error(`prompt_logprobs[${i}]["${id.slice(0, 20)}"]${why}`);
    }
  }
  return envelope.data as PromptLogprobsResponse;
}

export interface TokenScore {
  logprob: number;
  /** 1 for the target's first choice; null when the engine did not report ranks. */
  rank: number | null;
}

/**
 * The log-probability and rank of each prompt token at positions [from, to), read from the entry keyed by
 * that token's id. Throws when the engine's positions do not line up with the prompt as the arena tokenized it.
 */
export function promptTokenScores(
  response: PromptLogprobsResponse,
  ids: readonly number[],
  from: number,
  to = ids.length,
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
  for (let i = from; i < to; i++) {
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
 * At each prompt position in [from, to), the target's `k` most likely tokens with their raw log-probabilities
 * (the entry's other tokens: vLLM adds the prompt's own token when it ranks below them). Call after
 * `promptTokenScores` has checked that the positions line up.
 */
export function promptTopCandidates(
  response: PromptLogprobsResponse,
  ids: readonly number[],
  from: number,
  k: number,
  to = ids.length,
): RawCandidate[][] {
  const out: RawCandidate[][] = [];
  for (let i = from; i < to; i++) {
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
