import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { FIXTURE_TOKENIZER_DIR } from "./fixtures/build-fixture";
import { qwen3TokenizerDir } from "./packaged-qwen3";
import { createTokenizer, readTokenizerFiles, type TargetTokenizer } from "./target-tokenizer";
import { defaultCacheDirs, REPO_TOKENIZER_CACHE, writeTokenizerCache } from "./tokenizer-cache";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A cache folder of its own (0755, as the build leaves it) holding the tables of `tokenizerDir`. */
function cacheOf(tokenizerDir: string): { dir: string; file: string; fingerprint: string } {
  const dir = mkdtempSync(join(tmpdir(), "tokenizer-cache-"));
  made.push(dir);
  chmodSync(dir, 0o755);
  const files = readTokenizerFiles(tokenizerDir);
  expect(writeTokenizerCache(dir, files.fingerprint, files.tokenizerJson)).toBe(true);
  return { dir, file: join(dir, `${files.fingerprint}.json`), fingerprint: files.fingerprint };
}

const texts = [
  ...loadPool(DEV_POOL_PATH)
    .sessions.filter((_, i) => i % 25 === 0)
    .flatMap((s) => s.turns.map((t) => t.content.slice(0, 4000))),
  "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
  "ünïcödé 日本語 한국어 emoji 🤖🚀 \t\r\n  trailing   ",
  "12345678901234567890 3.14159 -0.5e10 0x1F",
  "def f(x):\n    return x ** 2  # comment\n\n\n",
  "",
];

function expectSameTokenizer(cached: TargetTokenizer, built: TargetTokenizer): void {
  expect(cached.fingerprint).toBe(built.fingerprint);
  expect(cached.vocabSize).toBe(built.vocabSize);
  expect(cached.eosId).toBe(built.eosId);
  expect(cached.stopIds).toEqual(built.stopIds);
  expect(cached.stableSplits).toBe(built.stableSplits);
  expect([...cached.specialIds]).toEqual([...built.specialIds]);
  for (const t of built.addedTokens) expect(cached.tokenToId(t.content)).toBe(t.id);
  let tokens = 0;
  for (const text of texts) {
    const ids = built.encode(text);
    tokens += ids.length;
    expect(cached.encode(text)).toEqual(ids);
    expect(cached.decode(ids)).toBe(built.decode(ids));
  }
  expect(tokens).toBeGreaterThan(10_000);
  for (let id = 0; id < built.vocabSize; id += 997) expect(cached.decodeToken(id)).toBe(built.decodeToken(id));
  expect(cached.decodeToken(built.vocabSize - 1)).toBe(built.decodeToken(built.vocabSize - 1));
}

describe("the tokenizer cache", () => {
  for (const [name, tokenizerDir] of [
    ["Qwen3", qwen3TokenizerDir()],
    ["the fixture (another vocabulary)", FIXTURE_TOKENIZER_DIR],
  ] as const) {
    it(`gives ${name} a tokenizer that encodes and decodes as one built from tokenizer.json`, () => {
      const cache = cacheOf(tokenizerDir);
      const files = readTokenizerFiles(tokenizerDir, { cacheDirs: [cache.dir] });
      expect(files.bpeTables).toBeDefined();
      // read from the cache: the file's model tables are not parsed
      expect((files.tokenizerJson.model as { vocab: object }).vocab).toEqual({});
      expectSameTokenizer(createTokenizer(files), createTokenizer(readTokenizerFiles(tokenizerDir)));
    });
  }

  it("is read only from a file and folder no one but root or the code's owner can write", () => {
    const cache = cacheOf(FIXTURE_TOKENIZER_DIR);
    const cached = () => readTokenizerFiles(FIXTURE_TOKENIZER_DIR, { cacheDirs: [cache.dir] }).bpeTables;
    expect(cached()).toBeDefined();
    chmodSync(cache.file, 0o666);
    expect(cached()).toBeUndefined();
    chmodSync(cache.file, 0o644);
    chmodSync(cache.dir, 0o777);
    expect(cached()).toBeUndefined();
    chmodSync(cache.dir, 0o755);
    // an engine's uid (lib/pods/sandbox): its files are never trusted
    chownSync(cache.file, 2000, 2000);
    expect(cached()).toBeUndefined();
    chownSync(cache.file, 0, 0);
    chownSync(cache.dir, 2000, 2000);
    expect(cached()).toBeUndefined();
    chownSync(cache.dir, 0, 0);
    expect(cached()).toBeDefined();
  });

  it("is read only under the sha256 of the bytes just read, and whole", () => {
    const cache = cacheOf(FIXTURE_TOKENIZER_DIR);
    const good = readFileSync(cache.file, "utf8");
    const cached = () => readTokenizerFiles(FIXTURE_TOKENIZER_DIR, { cacheDirs: [cache.dir] }).bpeTables;
    const body = JSON.parse(good) as Record<string, unknown> & { vocabIds: number[] };
    writeFileSync(cache.file, JSON.stringify({ ...body, fingerprint: "0".repeat(64) }));
    expect(cached()).toBeUndefined();
    writeFileSync(cache.file, JSON.stringify({ ...body, vocabIds: body.vocabIds.slice(1) }));
    expect(cached()).toBeUndefined();
    writeFileSync(cache.file, JSON.stringify({ ...body, format: "arena-bpe-tables/0" }));
    expect(cached()).toBeUndefined();
    writeFileSync(cache.file, good.slice(0, good.length / 2));
    expect(cached()).toBeUndefined();
    writeFileSync(cache.file, good);
    expect(cached()).toBeDefined();
  });

  it("writes nothing for a model other than BPE", () => {
    const dir = mkdtempSync(join(tmpdir(), "tokenizer-cache-"));
    made.push(dir);
    expect(writeTokenizerCache(dir, "a".repeat(64), { model: { type: "WordPiece", vocab: { a: 0 } } })).toBe(false);
  });

  it("is looked for in the repository's .build/tokenizer-cache, from the sources and from a bundle in .build/", () => {
    const repo = fileURLToPath(new URL("../../", import.meta.url));
    expect(defaultCacheDirs()[0]).toBe(join(repo, REPO_TOKENIZER_CACHE, "/"));
    // bundled, this module is .build/<bundle>/<module>.mjs: "../tokenizer-cache/" from there
    expect(new URL("../tokenizer-cache/", `file://${join(repo, ".build/sim-engine/sim-engine.mjs")}`).pathname).toBe(
      join(repo, REPO_TOKENIZER_CACHE, "/"),
    );
  });
});
