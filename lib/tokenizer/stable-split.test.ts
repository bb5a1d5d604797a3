import { describe, expect, it } from "vitest";
import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { qwen3Tokenizer, qwen3TokenizerDir } from "./packaged-qwen3";
import { assertStableSplits, lastStableSplit } from "./stable-split";
import { readTokenizerFiles } from "./target-tokenizer";

/** Every stable split of a text, from the start. */
function allSplits(text: string): number[] {
  const out: number[] = [];
  let end = text.length;
  for (;;) {
    const p = lastStableSplit(text.slice(0, end + 1), 0);
    if (p <= 0) break;
    out.unshift(p);
    end = p - 1;
  }
  return out;
}

describe("stable splits of the target's tokenizer", () => {
  const tok = qwen3Tokenizer();

  it("find only a space between ASCII letters, and the last one after the given start", () => {
    expect(lastStableSplit("one two three", 0)).toBe(7);
    expect(lastStableSplit("one two three", 7)).toBe(-1);
    expect(lastStableSplit("one two", 0)).toBe(3);
    for (const s of ["x  y", "x 1", "1 x", "é x", "x é", "x\ty", "x\ny", "x. y", "x ", " x", "x"])
      expect(lastStableSplit(s, 0), JSON.stringify(s)).toBe(-1);
  });

  it("cut real texts where encoding the pieces gives the whole text's tokens", () => {
    const pool = loadPool(DEV_POOL_PATH);
    const texts: string[] = [];
    for (const s of pool.sessions.filter((_, i) => i % 12 === 0)) {
      for (const t of s.turns) {
        texts.push(t.content.slice(0, 4000));
        if (t.recordedReply) texts.push(t.recordedReply.slice(0, 4000));
      }
    }
    // and the texts that stress the pipeline: contractions, digits, code, whitespace runs, CJK and emoji, NFC pairs
    texts.push(
      "it's what they'd say, isn't it? I'LL see 12345 apples at 3pm   and   x  y",
      "def f(x):\n    return x  * 2  # don't\n\n\n  done now",
      "Cafe\u0301 and cafe au lait, \u4e2d\u6587 text \ud83d\ude42 emoji here, <think> tags </think> too",
    );
    let splits = 0;
    for (const text of texts) {
      const cuts = allSplits(text);
      splits += cuts.length;
      const pieces: number[] = [];
      let start = 0;
      for (const p of [...cuts, text.length]) {
        pieces.push(...tok.encode(text.slice(start, p)));
        start = p;
      }
      expect(pieces, text.slice(0, 80)).toEqual(tok.encode(text));
    }
    expect(texts.length).toBeGreaterThan(300);
    expect(splits).toBeGreaterThan(10_000);
  });

  it("hold for Qwen3's tokenizer file and are refused for a pipeline they do not fit", () => {
    const files = readTokenizerFiles(qwen3TokenizerDir());
    expect(() => assertStableSplits(files.tokenizerJson)).not.toThrow();
    expect(tok.stableSplits).toBe(true);
    const spaced = {
      ...files.tokenizerJson,
      added_tokens: [{ content: "<a b>", special: true }],
    };
    expect(() => assertStableSplits(spaced)).toThrow(/added token "<a b>" holds or strips a space/);
    expect(() => assertStableSplits({ ...files.tokenizerJson, normalizer: { type: "NFKC" } })).toThrow(/NFKC/);
    expect(() => assertStableSplits({ ...files.tokenizerJson, pre_tokenizer: { type: "Whitespace" } })).toThrow(
      /pre-tokenizer/,
    );
  });
});
