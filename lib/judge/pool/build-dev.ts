/**
 * Writes the public `dev` pool and its data card: `npx tsx lib/judge/pool/build-dev.ts [--data DIR]`.
 * The `test` pool is never written here: `makeTestPool` builds it at run time into a caller's path.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { QWEN3_TOKENIZER_NAME, qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { workloadCard } from "../card/workload-card";
import { buildPool } from "./build-pool";
import { dataCard } from "./data-card";
import { dataDirFromArgs } from "./data-dir";
import { serializePool } from "./load";

const here = dirname(fileURLToPath(import.meta.url));
const dataDir = dataDirFromArgs(process.argv.slice(2));
// counted with the packaged Qwen3 tokenizer; the pool's meta line says so, and a target with another one recounts
const pool = buildPool(dataDir, "dev", workloadCard(), qwen3Tokenizer(), { tokenizerName: QWEN3_TOKENIZER_NAME });
mkdirSync(join(here, "data"), { recursive: true });
const text = serializePool(pool);
writeFileSync(join(here, "data/dev.jsonl"), text);
writeFileSync(join(here, "DATA_CARD.md"), dataCard(pool, Buffer.byteLength(text)));
console.log(
  `dev pool: ${pool.sessions.length} sessions, ${pool.apps.size} apps, ${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB`,
);
