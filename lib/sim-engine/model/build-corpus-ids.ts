/**
 * Writes the corpus encoded by the packaged Qwen3 tokenizer (corpus-ids.json), which every simulated engine on that
 * tokenizer loads instead of encoding the corpus at start. Run after build-corpus.ts or a tokenizer upgrade:
 * `npx tsx lib/sim-engine/model/build-corpus-ids.ts`; the output is committed, and corpus.test.ts fails while stale.
 */
import { writeFileSync } from "node:fs";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { CORPUS_IDS_FILE, corpusIdsFile } from "./corpus";

const file = corpusIdsFile(qwen3Tokenizer());
writeFileSync(new URL(`./${CORPUS_IDS_FILE}`, import.meta.url), `${JSON.stringify(file)}\n`);
console.log(`wrote ${file.lengths.length} replies, ${file.lengths.reduce((a, b) => a + b, 0)} tokens`);
