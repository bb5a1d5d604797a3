import { describe, expect, it } from "vitest";
import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { qwen3Tokenizer, qwen3TokenizerDir } from "@/lib/tokenizer/packaged-qwen3";
import { countChunks, tokenEnds } from "./chunk-tokens";
import { streamingCount } from "./streaming-count";
import { threadedTokenCounter } from "./token-counter";

/** A text cut into chunks of 1 to 12 characters, deterministic from the seed. */
function chunked(text: string, seed: number): string[] {
  const out: string[] = [];
  let x = seed || 1;
  for (let i = 0; i < text.length; ) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const n = 1 + ((x >>> 16) % 12);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const cumulative = (chunks: string[]) => {
  let at = 0;
  return chunks.map((c) => (at += c.length));
};

describe("a reply counted as it streams", () => {
  const tok = qwen3Tokenizer();
  const replies = loadPool(DEV_POOL_PATH)
    .sessions.flatMap((s) => s.turns.map((t) => t.recordedReply ?? ""))
    .filter((r) => r.length > 600)
    .slice(0, 60);
  /** A streaming count on the inline tokenizer that records each segment it was given to encode. */
  const recording = (options: { stableSplits: boolean; minSegment: number }) => {
    const encoded: string[] = [];
    const counting = streamingCount(async (segment) => {
      encoded.push(segment);
      return tokenEnds(tok, segment);
    }, options);
    return { counting, encoded };
  };

  it("counts what the whole text counts, chunk by chunk, having encoded all but the tail before it ends", async () => {
    expect(replies.length).toBe(60);
    let ascii = 0;
    for (const [i, reply] of replies.entries()) {
      const chunks = chunked(reply, i + 1);
      const { counting, encoded } = recording({ stableSplits: true, minSegment: 128 });
      for (const c of chunks) counting.append(c);
      // segments went out while the text streamed; the tail waits for the end
      const beforeEnd = encoded.join("").length;
      expect(beforeEnd, reply.slice(0, 60)).toBeGreaterThan(reply.length - 400);
      const got = await counting.finish(cumulative(chunks));
      expect(encoded.join("")).toBe(reply);
      const whole = countChunks(tok, reply, cumulative(chunks));
      expect(got.total).toBe(whole.total);
      expect(got.perChunk.reduce((a, b) => a + b, 0)).toBe(whole.total);
      // a byte-level token that splits a character decodes longer than it is, which shifts the whole text's later
      // token ends a little; a segment starts from its true offset, so only pure ASCII must attribute alike
      if (![...reply].some((c) => c.charCodeAt(0) > 127)) {
        ascii++;
        expect(got.perChunk).toEqual(whole.perChunk);
      }
    }
    expect(ascii).toBeGreaterThan(20);
  });

  it("waits for the end with a tokenizer that has no stable splits", async () => {
    const { counting, encoded } = recording({ stableSplits: false, minSegment: 8 });
    for (const c of chunked(replies[0]!, 7)) counting.append(c);
    expect(encoded).toEqual([]);
    expect((await counting.finish([replies[0]!.length])).total).toBe(tok.encode(replies[0]!).length);
  });

  it("counts an empty reply as no tokens, and fails at its end when encoding failed", async () => {
    expect(await streamingCount(async (s) => tokenEnds(tok, s), { stableSplits: true }).finish([])).toEqual({
      total: 0,
      perChunk: [],
    });
    const failing = streamingCount(
      async () => {
        throw new Error("worker gone");
      },
      { stableSplits: true, minSegment: 4 },
    );
    failing.append("alpha beta gamma delta ");
    await expect(failing.finish([23])).rejects.toThrow("worker gone");
  });

  it("counts many replies streaming at once in the worker, each apart, however their pieces interleave", async () => {
    const counter = await threadedTokenCounter(qwen3TokenizerDir());
    try {
      const texts = replies.slice(10, 30);
      const pieces = texts.map((t, i) => chunked(t, i + 11));
      const countings = texts.map(() => counter.streaming());
      // one piece of each reply in turn, as lanes' chunks arrive
      for (let k = 0; k < Math.max(...pieces.map((p) => p.length)); k++) {
        for (const [i, p] of pieces.entries()) if (p[k] !== undefined) countings[i]!.append(p[k]!);
      }
      const got = await Promise.all(countings.map((c, i) => c.finish(cumulative(pieces[i]!))));
      for (const [i, text] of texts.entries()) {
        expect(got[i]!.total).toBe(tok.encode(text).length);
        expect(got[i]!.perChunk).toHaveLength(pieces[i]!.length);
        expect(got[i]!.perChunk.reduce((a, b) => a + b, 0)).toBe(got[i]!.total);
      }
      // a reply that never streamed a character counts none
      expect(await counter.streaming().finish([])).toEqual({ total: 0, perChunk: [] });
    } finally {
      await counter.close();
    }
  });

  it("runs in the worker thread with the same result", async () => {
    const counter = await threadedTokenCounter(qwen3TokenizerDir());
    try {
      const reply = replies[1]!;
      const chunks = chunked(reply, 3);
      const counting = counter.streaming();
      for (const c of chunks) counting.append(c);
      expect((await counting.finish(cumulative(chunks))).total).toBe(tok.encode(reply).length);
    } finally {
      await counter.close();
    }
  });
});
