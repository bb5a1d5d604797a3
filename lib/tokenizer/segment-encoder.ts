import type { ChatTemplate } from "./chat-template";
import type { AddedTokenInfo, TargetTokenizer } from "./target-tokenizer";
import { type TemplateMarks, templateMarks } from "./template-marks";

/**
 * The added token that opens every message of the target's template (`<|im_start|>` in ChatML), where cutting a
 * prompt keeps its ids: null when there is none, or when a cut before it could change them. The tokenizer splits
 * text at added tokens (the longest match, leftmost first) before normalizing and pre-tokenizing the pieces between
 * them, so a cut right before an occurrence of token M is one of those splits unless M strips the space before it,
 * is matched only after normalization, or another added token could be matched across the cut (one that, from some
 * character after its first, runs on as M does).
 */
export function turnStartToken(tokenizer: Pick<TargetTokenizer, "addedTokens">, marks: TemplateMarks): string | null {
  let start: AddedTokenInfo | null = null;
  for (const t of tokenizer.addedTokens) {
    if (marks.userOpen.startsWith(t.content) && (!start || t.content.length > start.content.length)) start = t;
  }
  if (!start || start.lstrip || start.normalized) return null;
  const m = start.content;
  for (const t of tokenizer.addedTokens) {
    // an occurrence of t that starts before the cut and reaches past it: from some j > 0, t goes on as m does
    for (let j = 1; j < t.content.length; j++) {
      const tail = t.content.slice(j);
      if (m.startsWith(tail) || tail.startsWith(m)) return null;
    }
  }
  return m;
}

/**
 * Encodes chat prompts turn by turn with a cache of turns already seen, cutting right before each occurrence of the
 * template's turn-start token (`turnStartToken`), which gives exactly the ids of encoding the whole prompt; a
 * multi-turn session then pays BPE only for its new turns. Without such a token it encodes prompts whole.
 */
export class SegmentEncoder {
  private readonly cache = new Map<string, number[]>();

  constructor(
    private readonly tokenizer: TargetTokenizer,
    private readonly turnStart: string | null,
    private readonly capacity = 4096,
  ) {}

  encode(text: string): number[] {
    if (this.turnStart === null) return this.tokenizer.encode(text);
    const out: number[] = [];
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf(this.turnStart, start + 1);
      if (end < 0) end = text.length;
      const segment = text.slice(start, end);
      let ids = this.cache.get(segment);
      if (ids) this.cache.delete(segment);
      else ids = this.tokenizer.encode(segment);
      this.cache.set(segment, ids);
      if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
      for (const id of ids) out.push(id);
      start = end;
    }
    return out;
  }
}

/**
 * `tokenizer` with its encode going turn by turn through a SegmentEncoder: the same ids, each turn encoded once. The
 * checks render every scored reply's whole conversation, and its prefix, where most turns were already encoded.
 */
export function withTurnCache(tokenizer: TargetTokenizer, template: ChatTemplate): TargetTokenizer {
  const encoder = new SegmentEncoder(tokenizer, turnStartToken(tokenizer, templateMarks(template, tokenizer)));
  return { ...tokenizer, encode: (text) => encoder.encode(text) };
}
