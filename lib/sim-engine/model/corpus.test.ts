import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { loadTargetTokenizer, type TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { CORPUS_IDS_FILE, corpusIdsFile, corpusReplies, encodedCorpus } from "./corpus";

const committed = () => JSON.parse(readFileSync(new URL(`./${CORPUS_IDS_FILE}`, import.meta.url), "utf8"));

/** A tokenizer that counts its encode calls, to tell the committed ids from a live encoding. */
function counting(tokenizer: TargetTokenizer): { tokenizer: TargetTokenizer; calls: () => number } {
  let calls = 0;
  const wrapped = Object.create(tokenizer) as TargetTokenizer;
  wrapped.encode = (text: string) => {
    calls += 1;
    return tokenizer.encode(text);
  };
  return { tokenizer: wrapped, calls: () => calls };
}

describe("the toy model's encoded corpus", () => {
  it("is committed as the packaged Qwen3 tokenizer encodes the committed corpus today (rebuild it when this fails)", () => {
    expect(committed()).toEqual(corpusIdsFile(qwen3Tokenizer()));
  });

  it("is loaded from the committed ids for the packaged tokenizer, the same ids a live encoding gives", () => {
    const { tokenizer, calls } = counting(qwen3Tokenizer());
    const ids = encodedCorpus(tokenizer);
    expect(calls()).toBe(0);
    const replies = corpusReplies();
    expect(ids).toHaveLength(replies.length);
    for (const i of [0, 1, 500, replies.length - 1]) expect(ids[i]).toEqual(qwen3Tokenizer().encode(replies[i]!));
  });

  it("is encoded live by any other tokenizer.json, whose fingerprint the committed ids do not name", () => {
    const other = loadTargetTokenizer(FIXTURE_TOKENIZER_DIR);
    expect(other.fingerprint).not.toBe(committed().tokenizer);
    const { tokenizer, calls } = counting(other);
    const ids = encodedCorpus(tokenizer);
    expect(calls()).toBe(corpusReplies().length);
    expect(ids[3]).toEqual(other.encode(corpusReplies()[3]!));
  });
});
