import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";

const bounds = new WeakMap<TargetTokenizer, number>();

/**
 * The most code points a token can end past its start: the longest token of the vocabulary as it decodes alone,
 * plus one for a character begun by the token before it and completed by this one.
 */
export function tokenCharsBound(tokenizer: TargetTokenizer): number {
  let bound = bounds.get(tokenizer);
  if (bound === undefined) {
    bound = 0;
    for (let id = 0; id < tokenizer.vocabSize; id++) bound = Math.max(bound, codePoints(tokenizer.decodeToken(id)));
    bound += 1;
    bounds.set(tokenizer, bound);
  }
  return bound;
}

const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Which of a reply's tokens the sampling audit reads, by a rule that looks only at the tokens before each one: a
 * token is read when it starts at least `tokenCharsBound` code points before the protocol's cut of the reply
 * (`replyChars`), which leaves it whole in the scored text whatever it is; the end token that closed the reply is
 * read when the whole reply starts it that early. Keeping instead every token the cut leaves whole would select
 * the last one by its own length, and leaving out the end token would select every other token as "not the end":
 * either moves the PIT's distribution off uniform under exact sampling.
 * `ids` are the reply's tokens (without the end token); returns how many lead the audit, and whether the end follows.
 */
export function auditedSpan(
  tokenizer: TargetTokenizer,
  ids: readonly number[],
  replyChars: number,
): { tokens: number; end: boolean } {
  const last = replyChars - tokenCharsBound(tokenizer);
  const startOf = (t: number) => (t === 0 ? 0 : codePoints(tokenizer.decode(ids.slice(0, t))));
  if (startOf(ids.length) <= last) return { tokens: ids.length, end: true };
  // the starts grow with t: the largest t whose start is at most `last`, by bisection
  let lo = 0;
  let hi = ids.length;
  if (startOf(0) > last) return { tokens: 0, end: false };
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (startOf(mid) <= last) lo = mid;
    else hi = mid;
  }
  return { tokens: lo + 1, end: false };
}
