import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { lastStableSplit } from "@/lib/tokenizer/stable-split";
import { loadTargetTokenizer, TOKENIZER_FILE } from "@/lib/tokenizer/target-tokenizer";
import { tokenEnds } from "./chunk-tokens";
import { streamingCount } from "./streaming-count";
import { openTargetTokens } from "./target-tokens";
import { createTokenCounter, inlineTokenCounter, type TokenCounter, threadedTokenCounter } from "./token-counter";

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
const streamed = async (counter: TokenCounter, text: string, seed: number) => {
  const chunks = chunked(text, seed);
  const counting = counter.streaming();
  for (const c of chunks) counting.append(c);
  return counting.finish(cumulative(chunks));
};

const replies = loadPool(DEV_POOL_PATH)
  .sessions.flatMap((s) => s.turns.map((t) => t.recordedReply ?? ""))
  .filter((r) => r.length > 600)
  .slice(0, 40);

/**
 * The fixture with one more added token that holds spaces (" of the"), as some tokenizers' added tokens do: a cut
 * between "of" and " the" is no longer a place where the tokenizer must start a token.
 */
function withSpacedToken(dir: string): void {
  cpSync(FIXTURE_TOKENIZER_DIR, dir, { recursive: true });
  const path = join(dir, TOKENIZER_FILE);
  const json = JSON.parse(readFileSync(path, "utf8")) as {
    added_tokens: { id: number; content: string }[];
    model: { vocab: Record<string, number> };
  };
  const id = Object.keys(json.model.vocab).length;
  json.model.vocab[" of the"] = id;
  json.added_tokens.push({
    id,
    content: " of the",
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: false,
  } as never);
  writeFileSync(path, JSON.stringify(json));
}

describe("token counting with the tokenizer of the directory given", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "judge-tokenizer-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("counts with the fixture's vocabulary, threaded and inline, and says so by its fingerprint", async () => {
    const fixture = loadTargetTokenizer(FIXTURE_TOKENIZER_DIR);
    const qwen3 = qwen3Tokenizer();
    const threaded = await threadedTokenCounter(FIXTURE_TOKENIZER_DIR);
    const inline = inlineTokenCounter(fixture);
    try {
      expect(threaded.fingerprint).toBe(fixture.fingerprint);
      expect(inline.fingerprint).toBe(fixture.fingerprint);
      expect(fixture.fingerprint).not.toBe(qwen3.fingerprint);
      let differ = 0;
      for (const text of replies.slice(0, 10)) {
        const n = fixture.encode(text).length;
        expect(await threaded.count(text)).toBe(n);
        expect(await inline.count(text)).toBe(n);
        expect((await threaded.countChunks(text, [10, text.length])).total).toBe(n);
        if (n !== qwen3.encode(text).length) differ++;
      }
      expect(differ).toBe(10);
    } finally {
      await threaded.close();
    }
  });

  it("streams a reply to the whole text's count on the fixture, threaded and inline", async () => {
    const fixture = loadTargetTokenizer(FIXTURE_TOKENIZER_DIR);
    expect(fixture.stableSplits).toBe(true);
    const threaded = await createTokenCounter(FIXTURE_TOKENIZER_DIR);
    const inline = inlineTokenCounter(fixture);
    try {
      for (const [i, reply] of replies.entries()) {
        const whole = fixture.encode(reply).length;
        const t = await streamed(threaded, reply, i + 1);
        expect(t.total, reply.slice(0, 60)).toBe(whole);
        expect(t.perChunk.reduce((a, b) => a + b, 0)).toBe(whole);
        expect((await streamed(inline, reply, i + 7)).total).toBe(whole);
      }
    } finally {
      await threaded.close();
    }
  });

  it("stays exact for a tokenizer whose stable splits do not hold, where cutting at them would miscount", async () => {
    const dir = join(scratch, "spaced");
    withSpacedToken(dir);
    const tok = loadTargetTokenizer(dir);
    expect(tok.stableSplits).toBe(false);
    const text = "most of the time we went out, and of the rest we spoke little. ".repeat(40);
    // the pitfall is real: a cut at a "stable" split between "of" and " the" changes the tokens
    const at = text.indexOf("of the") + 2;
    expect(lastStableSplit(text.slice(0, at + 2), 0)).toBe(at);
    expect([...tok.encode(text.slice(0, at)), ...tok.encode(text.slice(at))]).not.toEqual(tok.encode(text));
    const whole = tok.encode(text).length;
    // chunks that end right after "of t": the last split a streaming count sees is then the one inside "of the"
    const pieces = text.split(/(?<=of t)/);
    const forced = streamingCount(async (s) => tokenEnds(tok, s), { stableSplits: true, minSegment: 16 });
    for (const c of pieces) forced.append(c);
    expect((await forced.finish([text.length])).total).not.toBe(whole);
    // the counters know it from the tokenizer file, and wait for the whole text
    const threaded = await threadedTokenCounter(dir);
    try {
      for (const counter of [threaded, inlineTokenCounter(tok)]) {
        const counting = counter.streaming();
        for (const c of pieces) counting.append(c);
        expect((await counting.finish(cumulative(pieces))).total).toBe(whole);
        expect((await streamed(counter, text, 5)).total).toBe(whole);
      }
    } finally {
      await threaded.close();
    }
  });

  it("names the directory and the file it lacks, threaded, inline and for the pod", async () => {
    const empty = join(scratch, "empty");
    cpSync(FIXTURE_TOKENIZER_DIR, empty, { recursive: true });
    rmSync(join(empty, TOKENIZER_FILE));
    const lacks = new RegExp(`the tokenizer directory ${empty} has no tokenizer\\.json`);
    await expect(threadedTokenCounter(empty)).rejects.toThrow(lacks);
    await expect(createTokenCounter(empty)).rejects.toThrow(lacks);
    await expect(openTargetTokens(empty)).rejects.toThrow(lacks);
    const opened = await openTargetTokens(FIXTURE_TOKENIZER_DIR);
    try {
      expect(opened.counter.fingerprint).toBe(opened.tokenizer.fingerprint);
      expect(opened.template.render([{ role: "user", content: "hi" }], { addGenerationPrompt: false })).toBe(
        "<|im_start|>user\nhi<|im_end|>\n",
      );
    } finally {
      await opened.counter.close();
    }
  });
});
