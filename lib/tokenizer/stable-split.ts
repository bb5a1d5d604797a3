const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * The last position p in (from, text.length − 1) at which the target's tokenizer starts a new token whatever text
 * follows, so that encode(text) = encode(text[..p]) ++ encode(text[p..]); -1 when there is none. Such a p sits
 * between an ASCII letter and a space that an ASCII letter follows. Qwen3's pipeline makes that safe: NFC never
 * composes across a space; no alternative of its pre-tokenizer's split pattern matches a letter and the space after
 * it (a letter run stops at the space, and the space opens the next word's match); BPE merges stay within a
 * pre-token; and no added token holds a space or strips one (`assertStableSplits` checks the tokenizer file).
 */
export function lastStableSplit(text: string, from: number): number {
  for (let p = text.length - 2; p > from; p--) {
    if (isStableSplit(text, p)) return p;
  }
  return -1;
}

/** Whether p (0 < p < text.length − 1) is such a position (see `lastStableSplit`). */
export const isStableSplit = (text: string, p: number): boolean =>
  text.charCodeAt(p) === 32 && isAsciiLetter(text.charCodeAt(p - 1)) && isAsciiLetter(text.charCodeAt(p + 1));

interface AddedToken {
  content: string;
  lstrip?: boolean;
  rstrip?: boolean;
}

/** Throws, naming what breaks it, when a tokenizer.json's pipeline is not one `lastStableSplit` is safe for. */
export function assertStableSplits(tokenizerJson: Record<string, unknown>): void {
  const normalizer = tokenizerJson.normalizer as { type?: string } | null;
  if (normalizer && normalizer.type !== "NFC")
    throw new Error(`stable splits: normalizer ${normalizer.type} is not NFC`);
  const pre = JSON.stringify(tokenizerJson.pre_tokenizer);
  const qwenPattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  if (!pre.includes(JSON.stringify(qwenPattern)))
    throw new Error("stable splits: the pre-tokenizer is not Qwen's split");
  for (const t of (tokenizerJson.added_tokens ?? []) as AddedToken[]) {
    if (t.content.includes(" ") || t.lstrip || t.rstrip)
      throw new Error(`stable splits: added token ${JSON.stringify(t.content)} holds or strips a space`);
  }
}
