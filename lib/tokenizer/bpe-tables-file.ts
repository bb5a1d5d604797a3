import { createHash } from "node:crypto";
import { endianness } from "node:os";
import { z } from "zod";

/**
 * The bytes of a tokenizer cache file (tokenizer-cache.ts): a BPE model's vocabulary and merges, laid out so that a
 * load makes its 300,000 strings by slicing two strings decoded whole, with no JSON.parse of them and no array that
 * dies at once (JSON read 0.6 s of CPU a Qwen3 load here; most of a load is page faults, 12 µs each, and scavenges).
 *
 * Layout, little-endian:
 * - u32 H; the sha256 of every byte after it (32 bytes); H bytes of JSON (`headerZ`); zeros up to a multiple of 4;
 * - i32 × vocab: the vocabulary's ids;
 * - u32 × (vocab + merges): each string's length in UTF-16 units, its top bit set when it lies in the two-byte section;
 * - the two-byte section (UTF-16LE, `twoByteUnits` units), then the one-byte section (latin1, `oneByteChars` bytes);
 * and nothing after. The strings are the vocabulary's tokens, then the merge keys in rank order, each section holding
 * its share in that order. Two sections rather than UTF-8: every JS string round-trips (a lone surrogate included),
 * decoding is a copy, and a token of latin1 characters stays a one-byte string. The hash stands for checking the
 * lengths and ids in JS (4 ms against 10–30 for loops that run before the JIT has compiled them): a file that matches
 * it is whole and as written, and the writer writes only ids of 31 bits and lengths that fill the sections.
 */
export const BPE_TABLES_FORMAT = "arena-bpe-tables/2";

/** A BPE model's tables as the tokenizers library builds them from tokenizer.json. */
export interface BpeTables {
  /** The vocabulary's entries in the order `Object.entries` gives them, which is the order of the library's Map. */
  vocabTokens: string[];
  vocabIds: number[];
  /** Each merge as the library keys it, `JSON.stringify([left, right])`, in rank order. */
  mergeKeys: string[];
}

/** A file's tables before the model's Maps are built from them (`unpackBpeTables`). */
export interface PackedBpeTables {
  vocabIds: Int32Array;
  /** Per string, vocabulary first: its UTF-16 length, `TWO_BYTE` set when it is in `twoByte`. */
  lengths: Uint32Array;
  oneByte: string;
  twoByte: string;
}

/** The tables as the library's BPE model holds them (its `tokens_to_ids`, `vocab` and `bpe_ranks`). */
export interface UnpackedBpeTables {
  tokensToIds: Map<string, number>;
  vocab: string[];
  bpeRanks: Map<string, number>;
  /** The tokens are distinct and their ids are 0 to vocab size − 1: each id's token maps back to it. */
  bijective: boolean;
}

export interface BpeTablesFile<T> {
  fingerprint: string;
  /** tokenizer.json without `model.vocab` and `model.merges`. */
  json: Record<string, unknown>;
  tables: T;
}

const TWO_BYTE = 0x80000000;
const LENGTH = 0x7fffffff;
const MAX_ID = 0x7fffffff;

const headerZ = z.object({
  format: z.literal(BPE_TABLES_FORMAT),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  json: z.record(z.string(), z.unknown()),
  vocab: z.number().int().nonnegative(),
  merges: z.number().int().nonnegative(),
  twoByteUnits: z.number().int().nonnegative(),
  oneByteChars: z.number().int().nonnegative(),
});

const HASH_AT = 4;
const HEADER_AT = HASH_AT + 32;
const align4 = (n: number) => (n + 3) & ~3;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest();
// without the u flag a class matches UTF-16 units: a surrogate is one of these
const oneByte = (s: string) => !/[\u0100-\uffff]/.test(s);

/** The file's bytes; null when an id does not fit in 31 bits. */
export function encodeBpeTablesFile({ fingerprint, json, tables }: BpeTablesFile<BpeTables>): Buffer | null {
  const { vocabTokens, vocabIds, mergeKeys } = tables;
  if (vocabTokens.length !== vocabIds.length || vocabIds.some((id) => !Number.isInteger(id) || id < 0 || id > MAX_ID))
    return null;
  const strings = [...vocabTokens, ...mergeKeys];
  const wide = strings.map((s) => !oneByte(s));
  const twoByte = strings.filter((_, i) => wide[i]).join("");
  const oneByteText = strings.filter((_, i) => !wide[i]).join("");
  const header = Buffer.from(
    JSON.stringify({
      format: BPE_TABLES_FORMAT,
      fingerprint,
      json,
      vocab: vocabIds.length,
      merges: mergeKeys.length,
      twoByteUnits: twoByte.length,
      oneByteChars: oneByteText.length,
    } satisfies z.infer<typeof headerZ>),
  );
  const idsAt = align4(HEADER_AT + header.length);
  const lengthsAt = idsAt + 4 * vocabIds.length;
  const twoByteAt = lengthsAt + 4 * strings.length;
  const oneByteAt = twoByteAt + 2 * twoByte.length;
  const bytes = Buffer.alloc(oneByteAt + oneByteText.length);
  bytes.writeUInt32LE(header.length, 0);
  header.copy(bytes, HEADER_AT);
  for (const [i, id] of vocabIds.entries()) bytes.writeInt32LE(id, idsAt + 4 * i);
  for (const [i, s] of strings.entries())
    bytes.writeUInt32LE(wide[i] ? (s.length | TWO_BYTE) >>> 0 : s.length, lengthsAt + 4 * i);
  bytes.write(twoByte, twoByteAt, "utf16le");
  bytes.write(oneByteText, oneByteAt, "latin1");
  sha256(bytes.subarray(HEADER_AT)).copy(bytes, HASH_AT);
  return bytes;
}

/** The header and tables of a file's bytes; null for bytes of another format, cut short or altered. */
export function decodeBpeTablesFile(bytes: Buffer): BpeTablesFile<PackedBpeTables> | null {
  if (endianness() !== "LE" || bytes.length < HEADER_AT) return null;
  const headerEnd = HEADER_AT + bytes.readUInt32LE(0);
  if (headerEnd > bytes.length || !sha256(bytes.subarray(HEADER_AT)).equals(bytes.subarray(HASH_AT, HEADER_AT)))
    return null;
  let header: z.infer<typeof headerZ>;
  try {
    const parsed = headerZ.safeParse(JSON.parse(bytes.toString("utf8", HEADER_AT, headerEnd)));
    if (!parsed.success) return null;
    header = parsed.data;
  } catch {
    return null;
  }
  const { vocab, merges, twoByteUnits, oneByteChars } = header;
  const idsAt = align4(headerEnd);
  const lengthsAt = idsAt + 4 * vocab;
  const twoByteAt = lengthsAt + 4 * (vocab + merges);
  const oneByteAt = twoByteAt + 2 * twoByteUnits;
  if (oneByteAt + oneByteChars !== bytes.length) return null;
  // typed arrays read in the platform's order, little-endian as checked above; they need 4-byte aligned views
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(new Uint8Array(bytes).buffer);
  return {
    fingerprint: header.fingerprint,
    json: header.json,
    tables: {
      vocabIds: new Int32Array(aligned.buffer, aligned.byteOffset + idsAt, vocab),
      lengths: new Uint32Array(aligned.buffer, aligned.byteOffset + lengthsAt, vocab + merges),
      twoByte: aligned.toString("utf16le", twoByteAt, oneByteAt),
      oneByte: aligned.toString("latin1", oneByteAt),
    },
  };
}

/**
 * The Maps and array the library's BPE constructor builds from tokenizer.json's vocab and merges, in the same order;
 * the array `minLength` long at least (where the added tokens will extend it: allocated once). Plain loops (no entry
 * arrays, no iterators): JS cannot presize a Map, and whatever dies young is copied by the scavenges the strings set
 * off anyway.
 */
export function unpackBpeTables(
  { vocabIds, lengths, oneByte, twoByte }: PackedBpeTables,
  minLength = 0,
): UnpackedBpeTables {
  const vocabSize = vocabIds.length;
  let oneAt = 0;
  let twoAt = 0;
  const next = (i: number): string => {
    const length = lengths[i]!;
    if (length & TWO_BYTE) {
      const start = twoAt;
      twoAt += length & LENGTH;
      return twoByte.slice(start, twoAt);
    }
    const start = oneAt;
    oneAt += length;
    return oneByte.slice(start, oneAt);
  };
  const tokensToIds = new Map<string, number>();
  let vocab = new Array<string>(Math.max(vocabSize, minLength));
  let idsOnce = true;
  for (let i = 0; i < vocabSize; i++) {
    const token = next(i);
    const id = vocabIds[i]!;
    tokensToIds.set(token, id);
    if (id >= vocabSize || vocab[id] !== undefined) idsOnce = false;
    vocab[id] = token;
  }
  const distinct = tokensToIds.size === vocabSize;
  // the library's array is built from its Map: where a token repeats, its first place and last id
  if (!distinct) {
    vocab = new Array<string>(Math.max(tokensToIds.size, minLength));
    for (const [token, id] of tokensToIds) vocab[id] = token;
  }
  const bpeRanks = new Map<string, number>();
  for (let i = vocabSize; i < lengths.length; i++) bpeRanks.set(next(i), i - vocabSize);
  if (oneAt !== oneByte.length || twoAt !== twoByte.length)
    throw new Error("the tokenizer cache's string lengths do not fill its sections");
  return { tokensToIds, vocab, bpeRanks, bijective: distinct && idsOnce };
}
