import { chmodSync, chownSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@huggingface/tokenizers";
import { afterAll, describe, expect, it } from "vitest";
import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { BPE_TABLES_FORMAT, encodeBpeTablesFile } from "./bpe-tables-file";
import { FIXTURE_TOKENIZER_DIR } from "./fixtures/build-fixture";
import { qwen3TokenizerDir } from "./packaged-qwen3";
import {
  createTokenizer,
  fillBpeTables,
  readTokenizerFiles,
  type TargetTokenizer,
  TOKENIZER_FILE,
  type TokenizerFiles,
  vocabSizeOf,
} from "./target-tokenizer";
import {
  bpeTablesOf,
  cacheFileName,
  defaultCacheDirs,
  REPO_TOKENIZER_CACHE,
  writeTokenizerCache,
} from "./tokenizer-cache";

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
  return { dir, file: join(dir, cacheFileName(files.fingerprint)), fingerprint: files.fingerprint };
}

interface ModelTables {
  tokens_to_ids: Map<string, number>;
  vocab: string[];
  bpe_ranks: Map<string, number>;
  unk_token_id?: number;
}

/** The library's tokenizer of some files, its model's tables filled from the cache where they came from it. */
function libraryTokenizer(files: TokenizerFiles): { model: ModelTables; everyIdMapsBack: boolean; tok: Tokenizer } {
  const tok = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
  const added = (files.tokenizerJson as { added_tokens: { id: number; content: string }[] }).added_tokens;
  const everyIdMapsBack = files.bpeTables ? fillBpeTables(tok, files.bpeTables, added) : false;
  return { model: tok.model as unknown as ModelTables, everyIdMapsBack, tok };
}

/** Both Maps' entries, one by one in order (a deep toEqual of 150,000 pairs takes seconds). */
function expectSameEntries(cached: Map<string, number>, built: Map<string, number>): void {
  expect(cached.size).toBe(built.size);
  const a = [...cached];
  const b = [...built];
  const differing = a.filter(([token, id], i) => token !== b[i]![0] || id !== b[i]![1]);
  expect(differing.slice(0, 5)).toEqual([]);
}

/**
 * The model tables of a tokenizer read through a cache are those built from the whole tokenizer.json; returns whether
 * the fill found every id mapping back (and the vocabulary's size without `vocabSizeOf`).
 */
function expectSameTables(cachedFiles: TokenizerFiles, builtFiles: TokenizerFiles): boolean {
  expect(cachedFiles.bpeTables).toBeDefined();
  const cached = libraryTokenizer(cachedFiles);
  const built = libraryTokenizer(builtFiles);
  expectSameEntries(cached.model.tokens_to_ids, built.model.tokens_to_ids);
  expectSameEntries(cached.model.bpe_ranks, built.model.bpe_ranks);
  const [a, b] = [cached.model.vocab, built.model.vocab];
  expect(a.length).toBe(b.length);
  const differing: number[] = [];
  for (let id = 0; id < b.length; id++) if (a[id] !== b[id] || id in a !== id in b) differing.push(id);
  expect(differing.slice(0, 5)).toEqual([]);
  expect(cached.model.unk_token_id).toBe(built.model.unk_token_id);
  // where the fill says every id maps back, the size vocabSizeOf would have checked
  if (cached.everyIdMapsBack) expect(cached.model.vocab.length).toBe(vocabSizeOf(built.tok));
  return cached.everyIdMapsBack;
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
      const built = readTokenizerFiles(tokenizerDir);
      expect(files.fingerprint).toBe(built.fingerprint);
      // Qwen3's added tokens follow its vocabulary; the fixture's stand at ids of it
      expect(expectSameTables(files, built)).toBe(true);
      expectSameTokenizer(createTokenizer(files), createTokenizer(built));
    });
  }

  it("gives the tables and vocabulary size the library builds where added tokens take over a token or an id", () => {
    const dir = mkdtempSync(join(tmpdir(), "tokenizer-cache-added-"));
    made.push(dir);
    cpSync(FIXTURE_TOKENIZER_DIR, dir, { recursive: true });
    const json = JSON.parse(readFileSync(join(dir, TOKENIZER_FILE), "utf8")) as {
      model: { vocab: Record<string, number> };
      added_tokens: Record<string, unknown>[];
    };
    const size = Object.keys(json.model.vocab).length;
    const entries = Object.entries(json.model.vocab);
    const [second, secondId] = entries[1]!;
    const [third] = entries[2]!;
    const added = (id: number, content: string) => ({ id, content, special: true, normalized: false });
    for (const [extra, everyIdMapsBack] of [
      // a token's text at a new id past the vocabulary: its old id no longer maps back, and holes before the new one
      [[added(size + 5, second)], false],
      // a new text at a token's id: the token leaves the array, every id still maps back
      [[added(secondId, "<|taking over|>")], true],
      // a token's text just past the vocabulary: its old id no longer maps back
      [[added(size, third), added(size + 1, "<|after|>")], false],
      [[added(size, "<|after|>")], true],
    ] as const) {
      writeFileSync(
        join(dir, TOKENIZER_FILE),
        JSON.stringify({ ...json, added_tokens: [...json.added_tokens, ...extra] }),
      );
      const cache = cacheOf(dir);
      const files = readTokenizerFiles(dir, { cacheDirs: [cache.dir] });
      const built = readTokenizerFiles(dir);
      expect(expectSameTables(files, built)).toBe(everyIdMapsBack);
      expect(createTokenizer(files).vocabSize).toBe(createTokenizer(built).vocabSize);
      expect(createTokenizer(files).vocabSize).toBe(vocabSizeOf(libraryTokenizer(built).tok));
    }
  });

  it("is read only from a file and folder no one but root or the code's owner can write", () => {
    const cache = cacheOf(FIXTURE_TOKENIZER_DIR);
    const cached = () => readTokenizerFiles(FIXTURE_TOKENIZER_DIR, { cacheDirs: [cache.dir] }).bpeTables;
    expect(cached()).toBeDefined();
    for (const mode of [0o664, 0o646, 0o666]) {
      chmodSync(cache.file, mode);
      expect(cached()).toBeUndefined();
    }
    chmodSync(cache.file, 0o644);
    for (const mode of [0o775, 0o757, 0o777]) {
      chmodSync(cache.dir, mode);
      expect(cached()).toBeUndefined();
    }
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
    const good = readFileSync(cache.file);
    const cached = () => readTokenizerFiles(FIXTURE_TOKENIZER_DIR, { cacheDirs: [cache.dir] }).bpeTables;
    const source = bpeTablesOf(readTokenizerFiles(FIXTURE_TOKENIZER_DIR).tokenizerJson)!;
    // another tokenizer's tables under this one's name
    writeFileSync(cache.file, encodeBpeTablesFile({ fingerprint: "0".repeat(64), ...source })!);
    expect(cached()).toBeUndefined();
    const edited = (edit: (bytes: Buffer) => void) => {
      const bytes = Buffer.from(good);
      edit(bytes);
      return bytes;
    };
    const idsAt = (36 + good.readUInt32LE(0) + 3) & ~3;
    for (const bytes of [
      edited((b) => b.write("arena-bpe-tables/1", b.indexOf(BPE_TABLES_FORMAT))),
      edited((b) => b.writeInt32LE(b.readInt32LE(idsAt) + 1, idsAt)),
      good.subarray(0, good.length / 2),
      good.subarray(0, good.length - 1),
      Buffer.concat([good, Buffer.alloc(4)]),
      Buffer.alloc(0),
    ]) {
      writeFileSync(cache.file, bytes);
      expect(cached()).toBeUndefined();
    }
    // the previous format's file, under the old name or the new one
    const { json, tables } = source;
    const old = JSON.stringify({ format: "arena-bpe-tables/1", fingerprint: cache.fingerprint, json, ...tables });
    writeFileSync(cache.file, old);
    expect(cached()).toBeUndefined();
    rmSync(cache.file);
    writeFileSync(join(cache.dir, `${cache.fingerprint}.json`), old);
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
