import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  BPE_TABLES_FORMAT,
  type BpeTables,
  decodeBpeTablesFile,
  encodeBpeTablesFile,
  unpackBpeTables,
} from "./bpe-tables-file";

const FINGERPRINT = "ab".repeat(32);
const JSON_REST = { model: { type: "BPE", vocab: {}, merges: [] }, added_tokens: [{ id: 9, content: "<|x|>" }] };

/** Tokens of one-byte and two-byte strings, short ones (copied when sliced) and long ones, a lone surrogate. */
const TOKENS = [
  "0",
  "12",
  "",
  "a",
  "Ġthe",
  "\n",
  "ÿþ",
  "Ā",
  "日本語",
  "🤖",
  "\ud800",
  "a long token of latin1 characters ÿ",
  "ĠaĠlongĠtokenĠofĠtwo-byteĠcharacters",
];
const MERGE_KEYS = TOKENS.slice(1).map((t, i) => JSON.stringify([TOKENS[i], t]));

/** The tables as the library builds them: `new Map(Object.entries(vocab))`, its array from that Map, the ranks. */
function libraryTables({ vocabTokens, vocabIds, mergeKeys }: BpeTables, minLength = 0) {
  const tokensToIds = new Map(vocabTokens.map((t, i) => [t, vocabIds[i]!]));
  const vocab = new Array<string>(tokensToIds.size);
  for (const [token, id] of tokensToIds) vocab[id] = token;
  if (vocab.length < minLength) vocab.length = minLength;
  return { tokensToIds, vocab, bpeRanks: new Map(mergeKeys.map((k, rank) => [k, rank])) };
}

/** Every index of an array, holes shown as such. */
const slots = (a: readonly string[]) => Array.from({ length: a.length }, (_, i) => (i in a ? a[i] : "<hole>"));

function roundTrip(tables: BpeTables, minLength = 0) {
  const bytes = encodeBpeTablesFile({ fingerprint: FINGERPRINT, json: JSON_REST, tables });
  expect(bytes).not.toBeNull();
  const file = decodeBpeTablesFile(bytes!);
  expect(file?.fingerprint).toBe(FINGERPRINT);
  expect(file?.json).toEqual(JSON_REST);
  return unpackBpeTables(file!.tables, minLength);
}

function expectLibraryTables(tables: BpeTables, minLength = 0) {
  const unpacked = roundTrip(tables, minLength);
  const expected = libraryTables(tables, minLength);
  expect([...unpacked.tokensToIds]).toEqual([...expected.tokensToIds]);
  expect(slots(unpacked.vocab)).toEqual(slots(expected.vocab));
  expect([...unpacked.bpeRanks]).toEqual([...expected.bpeRanks]);
  return unpacked;
}

/** A permutation of 0 … n − 1 that moves every id. */
const shuffledIds = (n: number) => Array.from({ length: n }, (_, i) => (i * 5 + 3) % n);

describe("the tokenizer cache's file", () => {
  it("gives back the library's Maps and array, in their order, for every kind of string", () => {
    const tables = { vocabTokens: TOKENS, vocabIds: shuffledIds(TOKENS.length), mergeKeys: MERGE_KEYS };
    const unpacked = expectLibraryTables(tables);
    expect(unpacked.bijective).toBe(true);
    expect(unpacked.vocab[tables.vocabIds[TOKENS.indexOf("\ud800")]!]).toBe("\ud800");
    // where the added tokens will go: allocated with the vocabulary, holes up to them
    expect(expectLibraryTables(tables, TOKENS.length + 3).vocab).toHaveLength(TOKENS.length + 3);
  });

  it("keeps the library's order and holes where ids skip, repeat or a token repeats", () => {
    const ids = shuffledIds(TOKENS.length);
    const skipping = { vocabTokens: TOKENS, vocabIds: ids.map((id) => id * 2), mergeKeys: MERGE_KEYS };
    expect(expectLibraryTables(skipping).bijective).toBe(false);
    const repeatedId = { vocabTokens: TOKENS, vocabIds: ids.map((id) => (id === 4 ? 5 : id)), mergeKeys: [] };
    expect(expectLibraryTables(repeatedId).bijective).toBe(false);
    const repeatedToken = { vocabTokens: [...TOKENS, "Ġthe"], vocabIds: shuffledIds(TOKENS.length + 1), mergeKeys: [] };
    expect(expectLibraryTables(repeatedToken).bijective).toBe(false);
    expect(expectLibraryTables({ vocabTokens: [], vocabIds: [], mergeKeys: [] }).vocab).toEqual([]);
  });

  it("reads from a buffer at any offset", () => {
    const tables = { vocabTokens: TOKENS, vocabIds: shuffledIds(TOKENS.length), mergeKeys: MERGE_KEYS };
    const bytes = encodeBpeTablesFile({ fingerprint: FINGERPRINT, json: JSON_REST, tables })!;
    const shifted = Buffer.concat([Buffer.alloc(1), bytes]).subarray(1);
    expect(shifted.byteOffset % 4).not.toBe(0);
    const file = decodeBpeTablesFile(shifted)!;
    expect([...unpackBpeTables(file.tables).tokensToIds]).toEqual([...libraryTables(tables).tokensToIds]);
  });

  it("is not written for ids beyond 31 bits or a vocabulary whose arrays differ in length", () => {
    const json = JSON_REST;
    const tables = (vocabIds: number[]) => ({ vocabTokens: ["a", "b"], vocabIds, mergeKeys: [] });
    expect(encodeBpeTablesFile({ fingerprint: FINGERPRINT, json, tables: tables([0, 2 ** 31]) })).toBeNull();
    expect(encodeBpeTablesFile({ fingerprint: FINGERPRINT, json, tables: tables([0]) })).toBeNull();
    expect(encodeBpeTablesFile({ fingerprint: FINGERPRINT, json, tables: tables([0, 2 ** 31 - 1]) })).not.toBeNull();
  });

  describe("is refused", () => {
    const tables = { vocabTokens: TOKENS, vocabIds: shuffledIds(TOKENS.length), mergeKeys: MERGE_KEYS };
    const good = encodeBpeTablesFile({ fingerprint: FINGERPRINT, json: JSON_REST, tables })!;
    const HEADER_AT = 36;
    const idsAt = (HEADER_AT + good.readUInt32LE(0) + 3) & ~3;
    const lengthsAt = idsAt + 4 * TOKENS.length;
    const edited = (edit: (bytes: Buffer) => void) => {
      const bytes = Buffer.from(good);
      edit(bytes);
      return bytes;
    };
    /** Bytes whose hash is made to match them again, as the writer would have. */
    const rehashed = (bytes: Buffer) => {
      createHash("sha256").update(bytes.subarray(HEADER_AT)).digest().copy(bytes, 4);
      return bytes;
    };

    it("cut anywhere, or with a byte more", () => {
      for (let end = 0; end < good.length; end++)
        expect(decodeBpeTablesFile(good.subarray(0, end)), `${end}`).toBeNull();
      expect(decodeBpeTablesFile(Buffer.concat([good, Buffer.alloc(1)]))).toBeNull();
      expect(decodeBpeTablesFile(good)).not.toBeNull();
    });

    it("with any byte altered", () => {
      for (let at = 0; at < good.length; at++) {
        const bytes = edited((b) => b.writeUInt8(b[at]! ^ 0x10, at));
        expect(decodeBpeTablesFile(bytes), `${at}`).toBeNull();
      }
    });

    it("of another format, or whose header does not parse", () => {
      const at = good.indexOf(BPE_TABLES_FORMAT);
      expect(at).toBeGreaterThan(0);
      expect(decodeBpeTablesFile(rehashed(edited((b) => b.write("arena-bpe-tables/1", at))))).toBeNull();
      expect(decodeBpeTablesFile(rehashed(edited((b) => b.write("}", HEADER_AT))))).toBeNull();
      expect(decodeBpeTablesFile(rehashed(edited((b) => b.writeUInt32LE(good.length, 0))))).toBeNull();
      expect(decodeBpeTablesFile(Buffer.from(JSON.stringify({ format: BPE_TABLES_FORMAT })))).toBeNull();
    });

    it("when unpacked, where its lengths do not fill its sections", () => {
      const longer = rehashed(edited((b) => b.writeUInt32LE(b.readUInt32LE(lengthsAt) + 1, lengthsAt)));
      expect(() => unpackBpeTables(decodeBpeTablesFile(longer)!.tables)).toThrow(/do not fill its sections/);
      // a string moved from one section to the other
      const moved = rehashed(edited((b) => b.writeUInt32LE((b.readUInt32LE(lengthsAt) ^ 0x80000000) >>> 0, lengthsAt)));
      expect(() => unpackBpeTables(decodeBpeTablesFile(moved)!.tables)).toThrow(/do not fill its sections/);
    });
  });
});
