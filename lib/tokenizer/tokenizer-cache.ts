import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type BpeTables, decodeBpeTablesFile, encodeBpeTablesFile, type PackedBpeTables } from "./bpe-tables-file";

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

/** The cache file of the tokenizer.json whose bytes hash to `fingerprint` (bpe-tables-file.ts gives its layout). */
export const cacheFileName = (fingerprint: string) => `${fingerprint}.bpe`;

export interface CachedTokenizerJson<T = BpeTables> {
  /** tokenizer.json without `model.vocab` and `model.merges`. */
  json: Record<string, unknown>;
  tables: T;
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

/**
 * Writes the cache file of a parsed tokenizer.json whose bytes hash to `fingerprint`; false when it is not BPE or its
 * ids do not fit the file.
 */
export function writeTokenizerCache(
  cacheDir: string,
  fingerprint: string,
  tokenizerJson: Record<string, unknown>,
): boolean {
  const cached = bpeTablesOf(tokenizerJson);
  const bytes = cached && encodeBpeTablesFile({ fingerprint, ...cached });
  if (!bytes) return false;
  mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
  chmodSync(cacheDir, 0o755);
  const file = join(cacheDir, cacheFileName(fingerprint));
  const staging = `${file}.${process.pid}`;
  writeFileSync(staging, bytes, { mode: 0o644 });
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

/**
 * The cached tables of the tokenizer.json whose bytes hash to `fingerprint`, from a trusted cache; else null. The
 * model's Maps are built from them by `unpackBpeTables`, once per tokenizer.
 */
export function readTokenizerCache(
  fingerprint: string,
  cacheDirs = defaultCacheDirs(),
): CachedTokenizerJson<PackedBpeTables> | null {
  const owners = trustedOwners();
  for (const dir of cacheDirs) {
    const file = join(dir, cacheFileName(fingerprint));
    try {
      if (!existsSync(file) || !trusted(dir, owners) || !trusted(file, owners)) continue;
      const cached = decodeBpeTablesFile(readFileSync(file));
      if (cached?.fingerprint === fingerprint) return { json: cached.json, tables: cached.tables };
    } catch {
      // unreadable: the tokenizer is built from its file instead
    }
  }
  return null;
}
