import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";

export interface CountedText {
  total: number;
  /** Tokens attributed to each chunk: a token belongs to the chunk in which its last character arrived. */
  perChunk: number[];
}

/**
 * Where each of a text's tokens ends (a UTF-16 offset into the text). Ends are sums of each token's decoded length,
 * clamped to the text (a byte-level token that splits a character decodes to a replacement character), so finding
 * them costs one encode and no re-decoding of prefixes.
 */
export function tokenEnds(tok: TargetTokenizer, text: string): number[] {
  const ids = tok.encode(text);
  const ends = new Array<number>(ids.length);
  let end = 0;
  for (let i = 0; i < ids.length; i++) {
    end = Math.min(text.length, end + tok.decodeToken(ids[i]!).length);
    ends[i] = end;
  }
  return ends;
}

/** Spreads tokens, given where each ends, over the chunks whose cumulative ends are `chunkEnds`. */
export function attributeTokens(ends: readonly number[], chunkEnds: readonly number[]): CountedText {
  const perChunk = new Array<number>(chunkEnds.length).fill(0);
  if (chunkEnds.length === 0) return { total: ends.length, perChunk };
  let chunk = 0;
  for (const end of ends) {
    while (chunk < chunkEnds.length - 1 && chunkEnds[chunk]! < end) chunk++;
    perChunk[chunk]!++;
  }
  return { total: ends.length, perChunk };
}

/** Counts a reply's tokens from its text and spreads them over the chunks that carried it. */
export function countChunks(tok: TargetTokenizer, text: string, chunkEnds: readonly number[]): CountedText {
  return attributeTokens(tokenEnds(tok, text), chunkEnds);
}
