import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";

/** Beside the module that names them, as bundled too (lib/pods/agent/bundle/build-agent-bundle.ts copies both). */
export const CORPUS_FILE = "corpus.jsonl";
export const CORPUS_IDS_FILE = "corpus-ids.json";

const idsFileSchema = z.object({
  /** sha256 of the tokenizer.json that encoded the corpus (TargetTokenizer.fingerprint). */
  tokenizer: z.string(),
  /** sha256 of the corpus' bytes. */
  corpus: z.string(),
  /** Each reply's token count, in the corpus' order. */
  lengths: z.array(z.number().int().nonnegative()),
  /** Every reply's ids, one after another, as little-endian int32 in base64. */
  ids: z.string(),
});
export type CorpusIdsFile = z.infer<typeof idsFileSchema>;

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

export function corpusBytes(): Buffer {
  return readFileSync(new URL(`./${CORPUS_FILE}`, import.meta.url));
}

/** The toy model's training replies, one JSON string a line (build-corpus.ts cut them). */
export function corpusReplies(bytes: Buffer = corpusBytes()): string[] {
  return bytes
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as string);
}

/** The corpus encoded by `tokenizer`, as the committed ids file holds it (build-corpus-ids.ts writes it). */
export function corpusIdsFile(tokenizer: TargetTokenizer, bytes: Buffer = corpusBytes()): CorpusIdsFile {
  const encoded = corpusReplies(bytes).map((r) => tokenizer.encode(r));
  const flat = Int32Array.from(encoded.flat());
  return {
    tokenizer: tokenizer.fingerprint,
    corpus: sha256(bytes),
    lengths: encoded.map((ids) => ids.length),
    ids: Buffer.from(flat.buffer, flat.byteOffset, flat.byteLength).toString("base64"),
  };
}

function decodeIds(file: CorpusIdsFile): number[][] {
  const raw = Buffer.from(file.ids, "base64");
  const flat = new Int32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  const out: number[][] = [];
  let at = 0;
  for (const length of file.lengths) {
    out.push(Array.from(flat.subarray(at, at + length)));
    at += length;
  }
  if (at !== flat.length) throw new Error(`${CORPUS_IDS_FILE}: its lengths sum to ${at}, its ids are ${flat.length}`);
  return out;
}

/**
 * Every corpus reply encoded by `tokenizer`. Encoding it is most of a simulated engine's start (about a second of CPU
 * for Qwen3's tokenizer), so the committed ids serve when they were made from these corpus bytes by a tokenizer.json
 * with the same sha256; any other tokenizer or corpus is encoded here. The file is read-only repository code, like the
 * corpus itself: no engine can write what another engine trains on.
 */
export function encodedCorpus(tokenizer: TargetTokenizer): number[][] {
  const bytes = corpusBytes();
  const path = new URL(`./${CORPUS_IDS_FILE}`, import.meta.url);
  if (existsSync(path)) {
    const file = idsFileSchema.parse(JSON.parse(readFileSync(path, "utf8")));
    if (file.tokenizer === tokenizer.fingerprint && file.corpus === sha256(bytes)) return decodeIds(file);
  }
  return corpusReplies(bytes).map((r) => tokenizer.encode(r));
}
