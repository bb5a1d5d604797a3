import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { hash32 } from "../rng";
import { loadPool, serializePool } from "./load";
import { DEV_POOL_PATH } from "./paths";
import type { App, Pool } from "./schema";

/** The key that holds the embedded default's test sessions out of the shipped dev pool (not the public split's). */
export const EMBEDDED_TEST_KEY = "speculator-arena embedded test v1";
/** A quarter of the dev pool: the size the held-out share of the public data has beside it (20% to its 80%). */
export const EMBEDDED_TEST_SHARE = 0.25;
export const EMBEDDED_TEST_POOL_FILE = "test-embedded.jsonl";

/** What the pool's first line says of itself, for whoever opens it: held out by a key, and not hidden. */
export const EMBEDDED_TEST_LABEL =
  "the embedded default's test pool: sessions held out of the public dev pool shipped in the repository by a keyed hash of their source and item; public text, not a hidden pool (an operator sets TEST_POOL_PATH, or PUBLIC_DATA_DIR for the held-out share of the public data)";

export function isEmbeddedTestSession(source: string, item: string, key = EMBEDDED_TEST_KEY): boolean {
  return hash32(key, source, item) / 4294967296 < EMBEDDED_TEST_SHARE;
}

/**
 * The `test` pool of a fresh clone, where neither TEST_POOL_PATH nor the public data beside the repository exists:
 * the sessions of the shipped dev pool whose source item the key holds out, with the apps they use, counted by the
 * dev pool's tokenizer, labelled as what it is. Written whole (a temporary file renamed) to `outPath`.
 */
export function makeEmbeddedTestPool(outPath: string, devPoolPath = DEV_POOL_PATH, key = EMBEDDED_TEST_KEY): Pool {
  const dev = loadPool(devPoolPath);
  if (!dev.countedBy) throw new Error(`${devPoolPath} names no tokenizer on its meta line`);
  const sessions = dev.sessions.filter((s) => isEmbeddedTestSession(s.source, s.sourceItem, key));
  const used = new Set(sessions.map((s) => s.app));
  const apps = new Map<string, App>([...dev.apps].filter(([id]) => used.has(id)));
  const pool: Pool = { apps, sessions, countedBy: dev.countedBy };
  const body = serializePool({ apps, sessions });
  const meta = JSON.stringify({
    type: "meta",
    countedBy: dev.countedBy,
    heldOut: { label: EMBEDDED_TEST_LABEL, from: "lib/judge/pool/data/dev.jsonl", key, share: EMBEDDED_TEST_SHARE },
  });
  mkdirSync(dirname(outPath), { recursive: true });
  const partial = `${outPath}.${process.pid}.partial`;
  writeFileSync(partial, `${meta}\n${body}`);
  renameSync(partial, outPath);
  return pool;
}
