import { lastStableSplit } from "@/lib/tokenizer/stable-split";
import { attributeTokens, type CountedText } from "./chunk-tokens";

/** A reply counted while it streams, so that its end waits only for the last few words' encoding. */
export interface StreamingCount {
  /** The next piece of the reply's text, in order. */
  append(text: string): void;
  /** The whole text's count, spread over the chunks whose cumulative ends are `chunkEnds`. */
  finish(chunkEnds: readonly number[]): Promise<CountedText>;
}

/**
 * Cuts the text at stable splits (see lib/tokenizer/stable-split.ts) once at least `minSegment` characters wait, and has `ends`
 * encode each segment as soon as it is cut; the tail after the last cut is encoded at `finish`. The token ends of the
 * segments, shifted by where each starts, are exactly the whole text's. A tokenizer without stable splits gets the
 * whole text at `finish`.
 */
export function streamingCount(
  ends: (segment: string) => Promise<number[]>,
  options: { stableSplits: boolean; minSegment?: number },
): StreamingCount {
  const minSegment = options.minSegment ?? 256;
  /** The text after the last cut (earlier text went to `ends` already), and the whole text's length. */
  let unsent = "";
  let length = 0;
  let cutAt = 0;
  /** The last stable split seen, absolute; a split needs the characters either side of it. */
  let split = -1;
  /** The text's last two characters, kept apart: slicing a growing string would copy it on every piece. */
  let lastTwo = "";
  const segments: { start: number; ends: Promise<number[]> }[] = [];
  const post = (end: number) => {
    const pending = ends(unsent.slice(0, end - cutAt));
    // awaited at finish; until then a failure must not surface as an unhandled rejection
    pending.catch(() => undefined);
    segments.push({ start: cutAt, ends: pending });
    unsent = unsent.slice(end - cutAt);
    cutAt = end;
  };
  return {
    append(piece) {
      // only the new piece and the two characters before it can hold a split not yet seen: each character is looked
      // at once however long a reply runs without one (CJK text, long code)
      const window = lastTwo + piece;
      const base = length - lastTwo.length;
      unsent += piece;
      length += piece.length;
      lastTwo = window.slice(-2);
      if (!options.stableSplits) return;
      const p = lastStableSplit(window, 0);
      if (p > 0) split = base + p;
      if (length - cutAt >= minSegment && split > cutAt) post(split);
    },
    async finish(chunkEnds) {
      if (cutAt < length || segments.length === 0) post(length);
      const all: number[] = [];
      for (const s of segments) for (const e of await s.ends) all.push(s.start + e);
      return attributeTokens(all, chunkEnds);
    },
  };
}
