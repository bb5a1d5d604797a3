import { describe, expect, it } from "vitest";
import { qwen3Tokenizer, qwen3TokenizerDir } from "@/lib/tokenizer/packaged-qwen3";
import { countChunks } from "./chunk-tokens";
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
