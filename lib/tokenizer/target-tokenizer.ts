import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { z } from "zod";
import { type PackedBpeTables, unpackBpeTables } from "./bpe-tables-file";
import { assertStableSplits } from "./stable-split";
import { defaultCacheDirs, readTokenizerCache } from "./tokenizer-cache";

/** The files of a tokenizer directory (`TOKENIZER`, the target's checkpoint) that the arena reads. */
export const TOKENIZER_FILE = "tokenizer.json";
export const TOKENIZER_CONFIG_FILE = "tokenizer_config.json";
/** Newer checkpoints keep the chat template here; transformers gives it priority over the config's `chat_template`. */
export const CHAT_TEMPLATE_FILE = "chat_template.jinja";
/** Where a checkpoint names the tokens generation stops on (`eos_token_id`: one id or a list), which vLLM stops on too. */
export const GENERATION_CONFIG_FILE = "generation_config.json";

/** An added token as tokenizer.json lists it. */
export interface AddedTokenInfo {
  id: number;
  content: string;
  special: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
}

/** The target's tokenizer: the one code path the judge counts with and the simulated engine serves with. */
export interface TargetTokenizer {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  decodeToken(id: number): string;
  tokenToId(token: string): number | undefined;
  readonly vocabSize: number;
  /** The config's `eos_token`, which ends a reply, and its id. */
  readonly eosToken: string;
  readonly eosId: number;
  /**
   * Every token a reply can end on: the eos, then the generation config's `eos_token_id` (Qwen3 also stops on
   * `<|endoftext|>`). A stream says a reply stopped, not on which of them.
   */
  readonly stopIds: readonly number[];
  readonly chatTemplate: string;
  /** The named special tokens the chat template sees (`bos_token`, `eos_token`, …), as transformers passes them. */
  readonly templateTokens: Readonly<Record<string, string>>;
  readonly specialIds: ReadonlySet<number>;
  readonly addedTokens: readonly AddedTokenInfo[];
  /** Whether encode(a + b) = encode(a) ++ encode(b) at every `lastStableSplit` position (stable-split.ts). */
  readonly stableSplits: boolean;
  /** sha256 of tokenizer.json's bytes (hex): what a token count names as the tokenizer that made it. */
  readonly fingerprint: string;
}

export interface TokenizerFiles {
  /** Where the files came from, for errors. */
  dir: string;
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  chatTemplate: string;
  fingerprint: string;
  /** generation_config.json beside them, where there is one. */
  generationConfig?: Record<string, unknown> | null;
  /** The model's tables from a trusted cache (tokenizer-cache.ts); `tokenizerJson` then lacks the vocab and merges. */
  bpeTables?: PackedBpeTables;
}

/** A special token in tokenizer_config.json: a plain string, or an AddedToken object with its `content`. */
const specialTokenZ = z.union([z.string(), z.object({ content: z.string() }).loose(), z.null()]).optional();

/** The special tokens transformers' `special_tokens_map` holds, which `apply_chat_template` passes to the template. */
const TEMPLATE_TOKEN_KEYS = [
  "bos_token",
  "eos_token",
  "unk_token",
  "sep_token",
  "pad_token",
  "cls_token",
  "mask_token",
] as const;

const tokenizerConfigZ = z
  .object({
    ...Object.fromEntries(TEMPLATE_TOKEN_KEYS.map((k) => [k, specialTokenZ])),
    /** A template, or (transformers' legacy form for several) a list of named ones. */
    chat_template: z.union([z.string(), z.array(z.object({ name: z.string(), template: z.string() }))]).optional(),
  })
  .loose();

const addedTokenZ = z
  .object({
    id: z.number().int().nonnegative(),
    content: z.string().min(1),
    special: z.boolean().default(false),
    lstrip: z.boolean().default(false),
    rstrip: z.boolean().default(false),
    normalized: z.boolean().default(true),
  })
  .loose();

const tokenizerJsonZ = z
  .object({
    model: z.object({ type: z.string().optional() }).loose(),
    added_tokens: z.array(addedTokenZ).default([]),
  })
  .loose();

const tokenText = (t: z.infer<typeof specialTokenZ>): string | null =>
  t === undefined || t === null ? null : typeof t === "string" ? t : t.content;

function readJson(dir: string, name: string): Record<string, unknown> {
  const path = join(dir, name);
  if (!existsSync(path)) throw new Error(`the tokenizer directory ${dir} has no ${name}`);
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${path} is not JSON: ${(error as Error).message}`);
  }
}

function parseConfig(dir: string, raw: Record<string, unknown>) {
  const parsed = tokenizerConfigZ.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${join(dir, TOKENIZER_CONFIG_FILE)}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * The chat template as transformers loads it: `chat_template.jinja` beside the config wins over the config's
 * `chat_template`; of a legacy list of named templates, the one named "default".
 */
function chatTemplateOf(dir: string, config: z.infer<typeof tokenizerConfigZ>): string {
  const file = join(dir, CHAT_TEMPLATE_FILE);
  if (existsSync(file)) return readFileSync(file, "utf8");
  const t = config.chat_template;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) {
    const named = t.find((x) => x.name === "default");
    if (named) return named.template;
    throw new Error(
      `${join(dir, TOKENIZER_CONFIG_FILE)}: chat_template lists ${t.map((x) => x.name).join(", ")} but no "default"`,
    );
  }
  throw new Error(
    `the tokenizer directory ${dir} has no chat template: no ${CHAT_TEMPLATE_FILE} and no chat_template in ${TOKENIZER_CONFIG_FILE}`,
  );
}

/** The named special tokens of a config, for the template; those the config leaves unset are left out. */
function templateTokensOf(config: z.infer<typeof tokenizerConfigZ>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of TEMPLATE_TOKEN_KEYS) {
    const text = tokenText(config[key] as z.infer<typeof specialTokenZ>);
    if (text !== null) out[key] = text;
  }
  return out;
}

/**
 * Checks, without loading the vocabulary, that a directory holds what `readTokenizerFiles` needs: tokenizer.json,
 * a tokenizer_config.json that names its eos_token, and a chat template. Throws an error naming the directory
 * and what is missing.
 */
export function checkTokenizerDir(dir: string): void {
  if (!existsSync(join(dir, TOKENIZER_FILE)))
    throw new Error(`the tokenizer directory ${dir} has no ${TOKENIZER_FILE}`);
  const config = parseConfig(dir, readJson(dir, TOKENIZER_CONFIG_FILE));
  chatTemplateOf(dir, config);
  if (tokenText(config.eos_token as z.infer<typeof specialTokenZ>) === null)
    throw new Error(`${join(dir, TOKENIZER_CONFIG_FILE)} names no eos_token`);
}

/** sha256 (hex) of a file's bytes, read through one small buffer: reading 11 MB into a fresh one faults 2,800 pages. */
function sha256OfFile(path: string): string {
  const hash = createHash("sha256");
  const chunk = Buffer.allocUnsafeSlow(1 << 18);
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) hash.update(chunk.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/**
 * Reads a tokenizer directory's files (`TOKENIZER`: the target's checkpoint). With `cacheDirs`, a BPE model's tables
 * come from a trusted cache of these very bytes where there is one (`bpeTables`), and tokenizer.json is not parsed.
 */
export function readTokenizerFiles(dir: string, options: { cacheDirs?: string[] } = {}): TokenizerFiles {
  const path = join(dir, TOKENIZER_FILE);
  if (!existsSync(path)) throw new Error(`the tokenizer directory ${dir} has no ${TOKENIZER_FILE}`);
  // hashed as read and never read again where the cache has them; else the bytes parsed are the bytes hashed
  let fingerprint = options.cacheDirs ? sha256OfFile(path) : "";
  const cached = options.cacheDirs ? readTokenizerCache(fingerprint, options.cacheDirs) : null;
  let tokenizerJson: Record<string, unknown>;
  if (cached) tokenizerJson = cached.json;
  else {
    const bytes = readFileSync(path);
    fingerprint = createHash("sha256").update(bytes).digest("hex");
    try {
      tokenizerJson = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`${path} is not JSON: ${(error as Error).message}`);
    }
  }
  const tokenizerConfig = readJson(dir, TOKENIZER_CONFIG_FILE);
  const chatTemplate = chatTemplateOf(dir, parseConfig(dir, tokenizerConfig));
  const generationConfig = existsSync(join(dir, GENERATION_CONFIG_FILE)) ? readJson(dir, GENERATION_CONFIG_FILE) : null;
  return {
    dir,
    tokenizerJson,
    tokenizerConfig,
    chatTemplate,
    fingerprint,
    generationConfig,
    ...(cached ? { bpeTables: cached.tables } : {}),
  };
}

interface BpeModelTables {
  tokens_to_ids: Map<string, number>;
  vocab: string[];
  bpe_ranks: Map<string, number>;
  unk_token?: string | null;
  unk_token_id?: number;
}

/**
 * Puts cached tables into a tokenizer built from a tokenizer.json without them, exactly as the library's BPE model
 * and Tokenizer constructors would have filled them (vocabulary, then the added tokens over it, then the merge ranks).
 * Returns whether every id below the vocabulary array's length has a token that maps back to it (`vocabSizeOf`'s
 * test, which costs 20–25 ms a Qwen3 load), where that follows from how the tables were built; false when unknown.
 */
export function fillBpeTables(
  tok: Tokenizer,
  tables: PackedBpeTables,
  added: readonly { id: number; content: string }[],
): boolean {
  const model = tok.model as unknown as Partial<BpeModelTables> | null;
  if (
    !model ||
    !(model.tokens_to_ids instanceof Map) ||
    !(model.bpe_ranks instanceof Map) ||
    !Array.isArray(model.vocab)
  )
    throw new Error("the tokenizers library's BPE model no longer has the tables the cache fills");
  const vocabSize = tables.vocabIds.length;
  // where the added tokens continue the vocabulary (Qwen3's), its array is allocated once at the length they give it
  const end = added.reduce((max, t) => Math.max(max, t.id + 1), 0);
  const {
    tokensToIds: ids,
    vocab,
    bpeRanks,
    bijective,
  } = unpackBpeTables(tables, end <= vocabSize + added.length ? end : 0);
  model.unk_token_id = model.unk_token == null ? undefined : ids.get(model.unk_token);
  // the ids the added tokens may leave without a token that maps back: theirs, those of the tokens they take over
  const touched: number[] = [];
  for (const t of added) {
    const before = ids.get(t.content);
    if (before !== undefined) touched.push(before);
    touched.push(t.id);
    ids.set(t.content, t.id);
    vocab[t.id] = t.content;
  }
  model.tokens_to_ids = ids;
  model.vocab = vocab;
  model.bpe_ranks = bpeRanks;
  if (!bijective) return false;
  // past the vocabulary, only added tokens: the first hole ends the loop
  for (let id = vocabSize; id < vocab.length; id++) if (ids.get(vocab[id]!) !== id) return false;
  return touched.every((id) => ids.get(vocab[id]!) === id);
}

/**
 * `tok.get_vocab(true).size` (the distinct tokens of the model's vocabulary) without building that 150,000-entry Map:
 * 55–75 ms a load here against 10–15, and a pod loads its tokenizer at every engine start and twice in its agent.
 * When every id's token maps back to that id, the tokens are all distinct and there is one per id.
 */
export function vocabSizeOf(tok: Pick<Tokenizer, "model" | "get_vocab">): number {
  const model = tok.model as unknown as Partial<BpeModelTables> | null;
  if (model && Array.isArray(model.vocab) && model.tokens_to_ids instanceof Map) {
    const { vocab, tokens_to_ids: ids } = model;
    let distinct = true;
    for (let id = 0; id < vocab.length && distinct; id++) distinct = ids.get(vocab[id]!) === id;
    if (distinct) return vocab.length;
  }
  return tok.get_vocab(true).size;
}

export function createTokenizer(files: TokenizerFiles): TargetTokenizer {
  const configFile = join(files.dir, TOKENIZER_CONFIG_FILE);
  const config = parseConfig(files.dir, files.tokenizerConfig);
  const json = tokenizerJsonZ.safeParse(files.tokenizerJson);
  if (!json.success) {
    const issue = json.error.issues[0]!;
    throw new Error(`${join(files.dir, TOKENIZER_FILE)}: ${issue.path.join(".")}: ${issue.message}`);
  }
  let tok: Tokenizer;
  let everyIdMapsBack = false;
  try {
    tok = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
    if (files.bpeTables) everyIdMapsBack = fillBpeTables(tok, files.bpeTables, json.data.added_tokens);
  } catch (error) {
    throw new Error(`${join(files.dir, TOKENIZER_FILE)} cannot be loaded: ${(error as Error).message}`);
  }
  const addedTokens: AddedTokenInfo[] = json.data.added_tokens.map((t) => ({
    id: t.id,
    content: t.content,
    special: t.special,
    lstrip: t.lstrip,
    rstrip: t.rstrip,
    normalized: t.normalized,
  }));
  const specialIds = new Set(addedTokens.filter((t) => t.special).map((t) => t.id));
  const vocabSize = everyIdMapsBack ? (tok.model as unknown as BpeModelTables).vocab.length : vocabSizeOf(tok);
  const eosToken = tokenText(config.eos_token as z.infer<typeof specialTokenZ>);
  if (eosToken === null) throw new Error(`${configFile} names no eos_token`);
  const eosId = tok.token_to_id(eosToken);
  if (eosId === undefined) throw new Error(`${configFile}: eos_token ${JSON.stringify(eosToken)} is not a token`);
  const stopIds = stopIdsOf(eosId, files.generationConfig, vocabSize, join(files.dir, GENERATION_CONFIG_FILE));
  const tokenCache = new Map<number, string>();
  let stableSplits = true;
  try {
    assertStableSplits(files.tokenizerJson);
  } catch {
    stableSplits = false;
  }
  return {
    encode: (text) => tok.encode(text, { add_special_tokens: false }).ids,
    decode: (ids) => (ids.length === 0 ? "" : tok.decode(ids as number[], { skip_special_tokens: false })),
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
    eosToken,
    eosId,
    stopIds,
    chatTemplate: files.chatTemplate,
    templateTokens: templateTokensOf(config),
    specialIds,
    addedTokens,
    stableSplits,
    fingerprint: files.fingerprint,
  };
}

const eosTokenIdZ = z.union([z.number().int().nonnegative(), z.array(z.number().int().nonnegative())]).optional();

/** The eos first, then the generation config's other `eos_token_id`s; an id past the vocabulary is named. */
function stopIdsOf(eosId: number, config: Record<string, unknown> | null | undefined, vocabSize: number, file: string) {
  const parsed = eosTokenIdZ.safeParse(config?.eos_token_id);
  if (!parsed.success) throw new Error(`${file}: eos_token_id must be a token id or a list of them`);
  const ids = [eosId, ...[parsed.data ?? []].flat()];
  for (const id of ids)
    if (id >= vocabSize) throw new Error(`${file}: eos_token_id ${id} is not a token (vocabulary of ${vocabSize})`);
  return [...new Set(ids)];
}

/**
 * The tokenizer of a target's directory: tokenizer.json, tokenizer_config.json (its eos_token, the template's named
 * tokens) and the chat template (see `chatTemplateOf`). Throws an error naming the directory and the missing file.
 */
export function loadTargetTokenizer(dir: string, options: { cacheDirs?: string[] } = {}): TargetTokenizer {
  return createTokenizer(readTokenizerFiles(dir, { cacheDirs: options.cacheDirs ?? defaultCacheDirs() }));
}
