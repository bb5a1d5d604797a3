import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { defaultTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";
import { workloadCard } from "../card/workload-card";
import { buildPool } from "./build-pool";
import { serializePool } from "./load";
import type { Pool } from "./schema";

/**
 * The embedded default's `test` pool: the held-out share of the public data (items the `dev` pool never holds),
 * written to `outPath`, which must lie outside the repository. An operator's own hidden pool replaces it.
 */
export function makeTestPool(dataDir: string, outPath: string, options: { key?: string } = {}): Pool {
  const pool = buildPool(dataDir, "test", workloadCard(), defaultTokenizer(), options);
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, serializePool(pool));
  return pool;
}
