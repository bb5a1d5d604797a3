import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { QWEN3_TOKENIZER_NAME, qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { workloadCard } from "../card/workload-card";
import { buildPool } from "./build-pool";
import { serializePool } from "./load";
import type { Pool } from "./schema";

/**
 * The embedded default's `test` pool: the held-out share of the public data (items the `dev` pool never holds),
 * written to `outPath`, which must lie outside the repository. An operator's own hidden pool replaces it. Counted with
 * the packaged Qwen3 tokenizer, which its meta line names: a target with another tokenizer recounts it.
 */
export function makeTestPool(dataDir: string, outPath: string, options: { key?: string } = {}): Pool {
  const pool = buildPool(dataDir, "test", workloadCard(), qwen3Tokenizer(), {
    ...options,
    tokenizerName: QWEN3_TOKENIZER_NAME,
  });
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, serializePool(pool));
  return pool;
}
