import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";

/**
 * Streams text from token ids as vLLM's incremental detokenizer does: a short window is re-decoded and only
 * complete characters are released (a multi-byte character split across tokens waits for its last byte).
 * Special tokens are skipped (skip_special_tokens).
 */
export class IncrementalDetokenizer {
  private readonly ids: number[] = [];
  private prefix = 0;
  private read = 0;

  constructor(private readonly tokenizer: TargetTokenizer) {}

  push(tokens: readonly number[]): string {
    for (const t of tokens) if (!this.tokenizer.specialIds.has(t)) this.ids.push(t);
    if (this.ids.length === this.read) return "";
    const prefixText = this.decode(this.prefix, this.read);
    const full = this.decode(this.prefix, this.ids.length);
    if (full.length <= prefixText.length || full.endsWith("\uFFFD")) return "";
    this.prefix = this.read;
    this.read = this.ids.length;
    return full.slice(prefixText.length);
  }

  private decode(from: number, to: number): string {
    return to > from ? this.tokenizer.decode(this.ids.slice(from, to)) : "";
  }

  /** What is still held back when the reply ends. */
  flush(): string {
    if (this.read === this.ids.length) return "";
    const prefixText = this.decode(this.prefix, this.read);
    const full = this.decode(this.prefix, this.ids.length);
    this.prefix = this.read = this.ids.length;
    return full.slice(prefixText.length);
  }
}
