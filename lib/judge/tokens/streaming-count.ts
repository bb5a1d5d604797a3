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
  let text = "";
  let cutAt = 0;
  const segments: { start: number; ends: Promise<number[]> }[] = [];
  const post = (start: number, end: number) => {
    const pending = ends(text.slice(start, end));
    // awaited at finish; until then a failure must not surface as an unhandled rejection
    pending.catch(() => undefined);
    segments.push({ start, ends: pending });
  };
  return {
    append(piece) {
      text += piece;
      if (!options.stableSplits || text.length - cutAt < minSegment) return;
      const p = lastStableSplit(text, cutAt);
      if (p < 0) return;
      post(cutAt, p);
      cutAt = p;
    },
    async finish(chunkEnds) {
      if (cutAt < text.length || segments.length === 0) post(cutAt, text.length);
      const all: number[] = [];
      for (const s of segments) for (const e of await s.ends) all.push(s.start + e);
      return attributeTokens(all, chunkEnds);
    },
  };
}
