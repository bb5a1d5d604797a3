/**
 * Writes the public `dev` pool and its data card: `npx tsx lib/judge/pool/build-dev.ts [--data DIR]`.
 * The `test` pool is never written here: `makeTestPool` builds it at run time into a caller's path.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";
import { workloadCard } from "../card/workload-card";
import { buildPool } from "./build-pool";
import { dataCard } from "./data-card";
import { dataDirFromArgs } from "./data-dir";
import { serializePool } from "./load";

const here = dirname(fileURLToPath(import.meta.url));
const dataDir = dataDirFromArgs(process.argv.slice(2));
const pool = buildPool(dataDir, "dev", workloadCard(), defaultTokenizer());
mkdirSync(join(here, "data"), { recursive: true });
const text = serializePool(pool);
writeFileSync(join(here, "data/dev.jsonl"), text);
writeFileSync(join(here, "DATA_CARD.md"), dataCard(pool, Buffer.byteLength(text)));
console.log(
  `dev pool: ${pool.sessions.length} sessions, ${pool.apps.size} apps, ${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB`,
);
