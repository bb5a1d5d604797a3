import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/**
 * A BPE tokenizer's tables (its vocabulary and merge ranks) as the tokenizers library builds them from tokenizer.json,
 * kept in a file so that a process need not parse the 11 MB JSON and rebuild them: about half a second of CPU a load,
 * and a pod loads its tokenizer six times (every engine start, the agent and its token counter).
 *
 * Invariant: a cache file is read only when it and its folder belong to root or to the owner of this code and no one
 * else can write them, and only under the sha256 of the tokenizer.json bytes just read. Whoever can write it can
 * already rewrite the code that reads it; an engine (another uid) cannot.
 */

/** The repository's cache folder, written by `npm test` and `npm run arena` beside the bundles (`.build/`). */
export const REPO_TOKENIZER_CACHE = ".build/tokenizer-cache";

const FORMAT = "arena-bpe-tables/1";

/** The tables, in the order the library builds them: vocabulary entries as `Object.entries` gives them. */
export interface BpeTables {
  vocabTokens: string[];
  vocabIds: number[];
  /** Each merge as the library keys it, `JSON.stringify([left, right])`, in rank order. */
  mergeKeys: string[];
}

export interface CachedTokenizerJson {
  /** tokenizer.json without `model.vocab` and `model.merges`. */
  json: Record<string, unknown>;
  tables: BpeTables;
}

// the two long arrays are checked by `tablesOf`, not through zod (40 ms a load for 300,000 elements)
const headerZ = z.object({
  format: z.literal(FORMAT),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  json: z.record(z.string(), z.unknown()),
  /** joined by "\n": a key is JSON text, in which a newline is always escaped */
  mergeKeys: z.string(),
});
type CacheFile = z.infer<typeof headerZ> & { vocabTokens: string[]; vocabIds: number[] };

/** The vocabulary's two arrays when they are strings and ids of one length; else null. */
function tablesOf(tokens: unknown, ids: unknown): { vocabTokens: string[]; vocabIds: number[] } | null {
  if (!Array.isArray(tokens) || !Array.isArray(ids) || tokens.length !== ids.length) return null;
  for (let i = 0; i < tokens.length; i++) {
    const id: unknown = ids[i];
    if (typeof tokens[i] !== "string" || typeof id !== "number" || !Number.isInteger(id) || id < 0) return null;
  }
  return { vocabTokens: tokens as string[], vocabIds: ids as number[] };
}

const modelZ = z
  .object({
    type: z.literal("BPE"),
    vocab: z.record(z.string(), z.number().int().nonnegative()),
    merges: z.union([z.array(z.string()), z.array(z.tuple([z.string(), z.string()]))]),
  })
  .loose();

/** The tables of a parsed tokenizer.json, built as the library builds them; null for a model other than BPE. */
export function bpeTablesOf(tokenizerJson: Record<string, unknown>): CachedTokenizerJson | null {
  const model = modelZ.safeParse(tokenizerJson.model);
  if (!model.success) return null;
  const entries = Object.entries(model.data.vocab);
  const merges = model.data.merges.map((m) => (typeof m === "string" ? m.split(" ", 2) : m));
  const { vocab: _vocab, merges: _merges, ...rest } = model.data;
  return {
    json: { ...tokenizerJson, model: { ...rest, vocab: {}, merges: [] } },
    tables: {
      vocabTokens: entries.map(([token]) => token),
      vocabIds: entries.map(([, id]) => id),
      mergeKeys: merges.map((m) => JSON.stringify(m)),
    },
  };
}

/** Writes the cache file of a parsed tokenizer.json whose bytes hash to `fingerprint`; false when it is not BPE. */
export function writeTokenizerCache(
  cacheDir: string,
  fingerprint: string,
  tokenizerJson: Record<string, unknown>,
): boolean {
  const cached = bpeTablesOf(tokenizerJson);
  if (!cached) return false;
  mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
  chmodSync(cacheDir, 0o755);
  const file = join(cacheDir, `${fingerprint}.json`);
  const staging = `${file}.${process.pid}`;
  const body: CacheFile = {
    format: FORMAT,
    fingerprint,
    json: cached.json,
    vocabTokens: cached.tables.vocabTokens,
    vocabIds: cached.tables.vocabIds,
    mergeKeys: cached.tables.mergeKeys.join("\n"),
  };
  writeFileSync(staging, JSON.stringify(body), { mode: 0o644 });
  renameSync(staging, file);
  return true;
}

/** Where this code looks: the repository's cache from its sources (lib/tokenizer/), or from a bundle in `.build/`. */
export function defaultCacheDirs(): string[] {
  return [
    fileURLToPath(new URL(`../../${REPO_TOKENIZER_CACHE}/`, import.meta.url)),
    fileURLToPath(new URL("../tokenizer-cache/", import.meta.url)),
  ];
}

/** Root and whoever owns this code: the only owners a cache file is trusted from. */
function trustedOwners(): Set<number> {
  return new Set([0, statSync(fileURLToPath(import.meta.url)).uid]);
}

function trusted(path: string, owners: Set<number>): boolean {
  const st = statSync(path);
  return owners.has(st.uid) && (st.mode & 0o022) === 0;
}

/** The cached tables of the tokenizer.json whose bytes hash to `fingerprint`, from a trusted cache; else null. */
export function readTokenizerCache(fingerprint: string, cacheDirs = defaultCacheDirs()): CachedTokenizerJson | null {
  const owners = trustedOwners();
  for (const dir of cacheDirs) {
    const file = join(dir, `${fingerprint}.json`);
    try {
      if (!existsSync(file) || !trusted(dir, owners) || !trusted(file, owners)) continue;
      const { vocabTokens, vocabIds, ...rest } = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      const header = headerZ.safeParse(rest);
      const vocab = tablesOf(vocabTokens, vocabIds);
      if (!header.success || header.data.fingerprint !== fingerprint || !vocab) continue;
      const { json, mergeKeys } = header.data;
      return { json, tables: { ...vocab, mergeKeys: mergeKeys === "" ? [] : mergeKeys.split("\n") } };
    } catch {
      // unreadable or half-written: the tokenizer is built from its file instead
    }
  }
  return null;
}
