import { describe, expect, it } from "vitest";
import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer, qwen3TokenizerDir } from "@/lib/tokenizer/packaged-qwen3";
import { loadTargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { countChunks, PieceEnds, tokenEnds } from "./chunk-tokens";
import { threadedTokenCounter } from "./token-counter";

describe("token counting", () => {
  it("splits a reply's tokens over the chunks that carried them, summing to the text's count", () => {
    const tok = qwen3Tokenizer();
    const text = "Hello there, world! Ünïcödé 中文 🙂 done.";
    const ids = tok.encode(text);
    // chunks of 3 characters: every token lands in exactly one chunk
    const ends: number[] = [];
    for (let i = 3; i < text.length; i += 3) ends.push(i);
    ends.push(text.length);
    const c = countChunks(tok, text, ends);
    expect(c.total).toBe(ids.length);
    expect(c.perChunk.reduce((a, b) => a + b, 0)).toBe(ids.length);
    // one token per chunk when the chunks are the tokens
    const words = " the of and to";
    expect(countChunks(tok, words, [4, 7, 11, 14]).perChunk).toEqual([1, 1, 1, 1]);
  });

  it("counts in a worker thread the same as inline", async () => {
    const counter = await threadedTokenCounter(qwen3TokenizerDir());
    try {
      const text = "def f(x):\n    return x * 2\n".repeat(20);
      expect(await counter.count(text)).toBe(qwen3Tokenizer().encode(text).length);
      const r = await counter.countChunks(text, [10, text.length]);
      expect(r.total).toBe(qwen3Tokenizer().encode(text).length);
      expect(counter.fingerprint).toBe(qwen3Tokenizer().fingerprint);
    } finally {
      await counter.close();
    }
  });
});

describe("token ends by remembered pieces", () => {
  const texts = loadPool(DEV_POOL_PATH)
    .sessions.flatMap((s) => s.turns.flatMap((t) => [t.content, t.recordedReply ?? ""]))
    .filter((t) => t.length > 200)
    .slice(0, 150);

  it("are the whole text's tokens, on Qwen3's tokenizer and on the fixture's, however often a piece repeats", () => {
    expect(texts.length).toBe(150);
    for (const tok of [qwen3Tokenizer(), loadTargetTokenizer(FIXTURE_TOKENIZER_DIR)]) {
      expect(tok.stableSplits).toBe(true);
      const pieces = new PieceEnds(tok, 64, 500);
      let ascii = 0;
      // twice over: the second pass reads most pieces from memory (the capacity of 500 also makes it start over)
      for (const round of [1, 2]) {
        for (const text of texts) {
          const got = pieces.ends(text);
          expect(got.length, `round ${round}: ${text.slice(0, 60)}`).toBe(tok.encode(text).length);
          expect(got.at(-1)).toBe(text.length);
          if (![...text].some((c) => c.charCodeAt(0) > 127)) {
            ascii++;
            expect(got).toEqual(tokenEnds(tok, text));
          }
        }
      }
      expect(ascii).toBeGreaterThan(50);
    }
  });

  it("gives no tokens for no text, and one piece's tokens for a text without a split", () => {
    const tok = qwen3Tokenizer();
    const pieces = new PieceEnds(tok);
    expect(pieces.ends("")).toEqual([]);
    expect(pieces.ends("中文,标点。")).toEqual(tokenEnds(tok, "中文,标点。"));
  });
});
