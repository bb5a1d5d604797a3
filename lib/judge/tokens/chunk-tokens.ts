import type { TargetTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";

export interface CountedText {
  total: number;
  /** Tokens attributed to each chunk: a token belongs to the chunk in which its last character arrived. */
  perChunk: number[];
}

/**
 * Counts a reply's tokens from its text and spreads them over the chunks that carried it. Token ends are found by
 * summing each token's decoded length (clamped to the text: a byte-level token that splits a character decodes to a
 * replacement character), so the split costs one encode and no re-decoding of prefixes.
 */
export function countChunks(tok: TargetTokenizer, text: string, chunkEnds: readonly number[]): CountedText {
  const ids = tok.encode(text);
  const perChunk = new Array<number>(chunkEnds.length).fill(0);
  if (chunkEnds.length === 0) return { total: ids.length, perChunk };
  let end = 0;
  let chunk = 0;
  for (const id of ids) {
    end = Math.min(text.length, end + tok.decodeToken(id).length);
    while (chunk < chunkEnds.length - 1 && chunkEnds[chunk]! < end) chunk++;
    perChunk[chunk]!++;
  }
  return { total: ids.length, perChunk };
}
