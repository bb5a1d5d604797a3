import { describe, expect, it } from "vitest";
import { defaultTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";
import { countChunks } from "./chunk-tokens";
import { threadedTokenCounter } from "./token-counter";

describe("token counting", () => {
  it("splits a reply's tokens over the chunks that carried them, summing to the text's count", () => {
    const tok = defaultTokenizer();
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
    const counter = await threadedTokenCounter();
    try {
      const text = "def f(x):\n    return x * 2\n".repeat(20);
      expect(await counter.count(text)).toBe(defaultTokenizer().encode(text).length);
      const r = await counter.countChunks(text, [10, text.length]);
      expect(r.total).toBe(defaultTokenizer().encode(text).length);
    } finally {
      await counter.close();
    }
  });
});
