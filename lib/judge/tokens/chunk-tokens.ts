import { isStableSplit } from "@/lib/tokenizer/stable-split";
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

/**
 * Token ends with every piece between stable splits remembered. A stable split p (lib/tokenizer/stable-split.ts)
 * gives encode(text) = encode(text[..p]) ++ encode(text[p..]), and a split of the text is a split of any piece that
 * holds it, so cutting a text at all of them and encoding each piece gives the text's own tokens; a piece (in prose,
 * mostly " word") repeats, and is encoded once. A tokenizer without stable splits encodes every text whole.
 */
export class PieceEnds {
  private readonly cache = new Map<string, readonly number[]>();

  constructor(
    private readonly tok: TargetTokenizer,
    /** Pieces longer than this are encoded every time (they rarely repeat). */
    private readonly maxPiece = 64,
    /** Remembered pieces, at most; past it the memory starts over. */
    private readonly capacity = 100_000,
  ) {}

  ends(text: string): number[] {
    if (!this.tok.stableSplits) return tokenEnds(this.tok, text);
    const out: number[] = [];
    let start = 0;
    for (let p = 1; p < text.length - 1; p++) {
      if (!isStableSplit(text, p)) continue;
      this.piece(text, start, p, out);
      start = p;
    }
    if (start < text.length) this.piece(text, start, text.length, out);
    return out;
  }

  private piece(text: string, from: number, to: number, out: number[]): void {
    const piece = text.slice(from, to);
    let ends = this.cache.get(piece);
    if (ends === undefined) {
      ends = tokenEnds(this.tok, piece);
      if (piece.length <= this.maxPiece) {
        if (this.cache.size >= this.capacity) this.cache.clear();
        this.cache.set(piece, ends);
      }
    }
    for (const e of ends) out.push(from + e);
  }
}
