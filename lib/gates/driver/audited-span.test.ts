import { describe, expect, it } from "vitest";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { auditedSpan, tokenCharsBound } from "./audited-span";

const tok = qwen3Tokenizer();
const CUT = 2000;
const chars = (ids: readonly number[]) => Array.from(tok.decode([...ids])).length;

/** Some text of a given length in code points, varied so its tokens vary (words, digits, a few wide characters). */
const textOf = (length: number, salt: number) => {
  let s = "";
  for (let i = 0; Array.from(s).length < length; i++)
    s += `${["alpha", "beta", "γάμμα", "你好", "42"][(i * 7 + salt) % 5]} `;
  return Array.from(s).slice(0, length).join("");
};

describe("the tokens the sampling audit reads of a reply", () => {
  it("bounds a token's reach by Qwen3's longest token (128 spaces) and a character it may complete", () => {
    expect(tokenCharsBound(tok)).toBe(129);
  });

  it("reads a short reply whole, then its end token", () => {
    const ids = tok.encode("Hello there, how can I help?");
    expect(auditedSpan(tok, ids, CUT)).toEqual({ tokens: ids.length, end: true });
  });

  it("reads only the tokens that start at least the bound before the cut, and no end, in a reply near or past it", () => {
    const last = CUT - tokenCharsBound(tok);
    for (const length of [last + 40, CUT - 1, CUT]) {
      const ids = tok.encode(textOf(length, 1));
      const span = auditedSpan(tok, ids, CUT);
      expect(span.end).toBe(false);
      expect(chars(ids.slice(0, span.tokens - 1))).toBeLessThanOrEqual(last);
      expect(chars(ids.slice(0, span.tokens))).toBeGreaterThan(last);
      // every token read lies whole inside the protocol's cut
      expect(chars(ids.slice(0, span.tokens))).toBeLessThanOrEqual(CUT);
    }
  });

  it("decides each token on the tokens before it only: replies sharing their first 1,900 characters are read alike", () => {
    const shared = textOf(1900, 2);
    const a = tok.encode(`${shared} and then one way it ends.`);
    const b = tok.encode(`${shared}${textOf(1500, 3)}`);
    const common = a.findIndex((id, i) => b[i] !== id);
    const spanA = auditedSpan(tok, a, CUT);
    const spanB = auditedSpan(tok, b, CUT);
    expect(spanA.tokens).toBeLessThan(common);
    expect(spanA).toEqual(spanB);
  });
});
