import type { TargetTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";

const TURN_START = "<|im_start|>";

/**
 * Encodes chat prompts turn by turn with a cache of turns already seen. The tokenizer splits text at added tokens
 * before byte-level BPE, so cutting right before each `<|im_start|>` gives exactly the same ids as encoding the whole
 * prompt; a multi-turn session then pays BPE only for its new turns.
 */
export class SegmentEncoder {
  private readonly cache = new Map<string, number[]>();

  constructor(
    private readonly tokenizer: TargetTokenizer,
    private readonly capacity = 4096,
  ) {}

  encode(text: string): number[] {
    const out: number[] = [];
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf(TURN_START, start + 1);
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
