import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { type ChatMessage, ChatTemplate, type ToolSchema } from "./chat-template";
import { buildFixtureTokenizer, FIXTURE_TOKENIZER_DIR } from "./fixtures/build-fixture";
import { qwen3Tokenizer, qwen3TokenizerDir } from "./packaged-qwen3";
import {
  CHAT_TEMPLATE_FILE,
  checkTokenizerDir,
  GENERATION_CONFIG_FILE,
  loadTargetTokenizer,
  readTokenizerFiles,
  TOKENIZER_CONFIG_FILE,
  TOKENIZER_FILE,
  vocabSizeOf,
} from "./target-tokenizer";
import { templateMarks } from "./template-marks";

const fixture = loadTargetTokenizer(FIXTURE_TOKENIZER_DIR);
const qwen3 = qwen3Tokenizer();
const texts = loadPool(DEV_POOL_PATH)
  .sessions.filter((_, i) => i % 40 === 0)
  .flatMap((s) => s.turns.map((t) => t.content.slice(0, 3000)));

const conversation: ChatMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Why does the build fail?" },
  { role: "assistant", content: "Let me look at the log." },
  { role: "tool", content: "error TS2345: Argument of type 'string' is not assignable." },
];
const tools: ToolSchema[] = [{ type: "function", function: { name: "bash", description: "run a shell command" } }];

describe("the fixture tokenizer", () => {
  it("loads from its directory: another vocabulary, its eos from the config's AddedToken, its template from .jinja", () => {
    const config = JSON.parse(readFileSync(join(FIXTURE_TOKENIZER_DIR, TOKENIZER_CONFIG_FILE), "utf8"));
    expect(config.chat_template).toBeUndefined();
    expect(config.eos_token).toMatchObject({ content: "<|im_end|>" });
    expect(fixture.chatTemplate).toBe(readFileSync(join(FIXTURE_TOKENIZER_DIR, CHAT_TEMPLATE_FILE), "utf8"));
    expect(fixture.vocabSize).toBe(4282);
    expect(fixture.eosToken).toBe("<|im_end|>");
    expect(fixture.eosId).toBe(fixture.tokenToId("<|im_end|>"));
    expect(fixture.eosId).not.toBe(qwen3.eosId);
    expect(fixture.tokenToId("<|im_start|>")).not.toBe(qwen3.tokenToId("<|im_start|>"));
    expect(fixture.specialIds.has(fixture.eosId)).toBe(true);
    expect(fixture.templateTokens).toEqual({ eos_token: "<|im_end|>", pad_token: "<|endoftext|>" });
    const bytes = readFileSync(join(FIXTURE_TOKENIZER_DIR, TOKENIZER_FILE));
    expect(fixture.fingerprint).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(fixture.fingerprint).not.toBe(qwen3.fingerprint);
    expect(bytes.length).toBeLessThan(300_000);
  });

  it("counts real texts otherwise than Qwen3, and decodes what it encodes", () => {
    expect(texts.length).toBeGreaterThan(100);
    let longer = 0;
    for (const text of texts) {
      const ids = fixture.encode(text);
      const q = qwen3.encode(text);
      if (ids.length > q.length) longer++;
      expect(ids.every((id) => id >= 0 && id < fixture.vocabSize)).toBe(true);
      expect(fixture.decode(ids)).toBe(text.normalize("NFC"));
    }
    // a few thousand merges against Qwen3's 151,387: nearly every text takes more tokens
    expect(longer).toBeGreaterThan(texts.length * 0.9);
  });

  it("renders its .jinja template with the config's eos_token, as Qwen3's renders, and marks its messages alike", () => {
    const f = new ChatTemplate(fixture);
    const q = new ChatTemplate(qwen3);
    for (const addGenerationPrompt of [false, true]) {
      const options = { tools, addGenerationPrompt, enableThinking: false };
      const text = f.render(conversation, options);
      expect(text).toBe(q.render(conversation, options));
      expect(text).toContain("<|im_end|>");
      // the same text, other ids: the special tokens are the fixture's
      expect(fixture.encode(text).filter((id) => id === fixture.eosId).length).toBe(4);
    }
    const marks = {
      userOpen: "<|im_start|>user\n",
      messageClose: "<|im_end|>\n",
      replyPrefix: "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    };
    expect(templateMarks(f, fixture)).toEqual(marks);
    expect(templateMarks(q, qwen3)).toEqual(marks);
  });

  it("is what its committed script writes from the packaged Qwen3 files", () => {
    const out = mkdtempSync(join(tmpdir(), "fixture-tokenizer-"));
    try {
      buildFixtureTokenizer(qwen3TokenizerDir(), out);
      for (const file of [TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, CHAT_TEMPLATE_FILE]) {
        expect(readFileSync(join(out, file)).equals(readFileSync(join(FIXTURE_TOKENIZER_DIR, file))), file).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("a tokenizer directory", () => {
  let scratch: string;
  let n = 0;
  /** A copy of the fixture's directory, changed by `edit`. */
  const variant = (edit: (dir: string, config: Record<string, unknown>) => Record<string, unknown> | null) => {
    const dir = join(scratch, `v${n++}`);
    cpSync(FIXTURE_TOKENIZER_DIR, dir, { recursive: true });
    const path = join(dir, TOKENIZER_CONFIG_FILE);
    const config = edit(dir, JSON.parse(readFileSync(path, "utf8")));
    if (config) writeFileSync(path, JSON.stringify(config));
    return dir;
  };
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "tokenizer-dirs-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("takes chat_template.jinja over the config's chat_template, as transformers does, and the config's otherwise", () => {
    const both = variant((_, c) => ({ ...c, chat_template: "config {{ messages[0].content }}" }));
    expect(loadTargetTokenizer(both).chatTemplate).toBe(fixture.chatTemplate);
    const configOnly = variant((dir, c) => {
      rmSync(join(dir, CHAT_TEMPLATE_FILE));
      return { ...c, chat_template: "config {{ messages[0].content }}" };
    });
    expect(loadTargetTokenizer(configOnly).chatTemplate).toBe("config {{ messages[0].content }}");
    const named = variant((dir, c) => {
      rmSync(join(dir, CHAT_TEMPLATE_FILE));
      return {
        ...c,
        chat_template: [
          { name: "tool_use", template: "tools" },
          { name: "default", template: "plain" },
        ],
      };
    });
    expect(loadTargetTokenizer(named).chatTemplate).toBe("plain");
    expect(loadTargetTokenizer(variant((_, c) => ({ ...c, eos_token: "<|endoftext|>" }))).eosToken).toBe(
      "<|endoftext|>",
    );
  });

  it("stops on the eos and on every eos_token_id its generation config names, as vLLM does", () => {
    expect(fixture.stopIds).toEqual([fixture.eosId]);
    const withConfig = (eos: unknown) =>
      variant((dir) => {
        writeFileSync(join(dir, GENERATION_CONFIG_FILE), JSON.stringify({ eos_token_id: eos, top_k: 20 }));
        return null;
      });
    const other = fixture.tokenToId("<|endoftext|>")!;
    expect(loadTargetTokenizer(withConfig([fixture.eosId, other])).stopIds).toEqual([fixture.eosId, other]);
    expect(loadTargetTokenizer(withConfig(other)).stopIds).toEqual([fixture.eosId, other]);
    expect(() => loadTargetTokenizer(withConfig("<|endoftext|>"))).toThrow(
      /generation_config\.json: eos_token_id must be a token id/,
    );
    expect(() => loadTargetTokenizer(withConfig([fixture.vocabSize + 5]))).toThrow(
      new RegExp(`eos_token_id ${fixture.vocabSize + 5} is not a token`),
    );
  });

  it("that lacks a file, or names no usable eos, fails with an error naming the directory and what is missing", () => {
    const without = (file: string) =>
      variant((dir) => {
        rmSync(join(dir, file));
        return null;
      });
    const cases: [string, RegExp][] = [
      [without(TOKENIZER_FILE), /has no tokenizer\.json/],
      [without(TOKENIZER_CONFIG_FILE), /has no tokenizer_config\.json/],
      [without(CHAT_TEMPLATE_FILE), /has no chat template: no chat_template\.jinja/],
      [variant((_, c) => ({ ...c, eos_token: null })), /names no eos_token/],
    ];
    for (const [dir, why] of cases) {
      expect(() => loadTargetTokenizer(dir), dir).toThrow(why);
      expect(() => loadTargetTokenizer(dir), dir).toThrow(dir);
      expect(() => checkTokenizerDir(dir), dir).toThrow(why);
    }
    const unknownEos = variant((_, c) => ({ ...c, eos_token: "<|no_such_token|>" }));
    expect(() => loadTargetTokenizer(unknownEos)).toThrow(/eos_token "<\|no_such_token\|>" is not a token/);
    expect(() => loadTargetTokenizer(join(scratch, "absent"))).toThrow(/absent has no tokenizer\.json/);
    expect(() => checkTokenizerDir(FIXTURE_TOKENIZER_DIR)).not.toThrow();
  });
});

describe("the vocabulary's size", () => {
  /** The library's own tokenizer of a directory, built from its whole tokenizer.json (no cache). */
  const libraryTokenizer = (dir: string) => {
    const files = readTokenizerFiles(dir, { cacheDirs: [] });
    return new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
  };

  it("is what the library's get_vocab(true) counts, for Qwen3's and the fixture's tokenizers", () => {
    for (const [dir, expected] of [
      [qwen3TokenizerDir(), qwen3.vocabSize],
      [FIXTURE_TOKENIZER_DIR, fixture.vocabSize],
    ] as const) {
      const tok = libraryTokenizer(dir);
      expect(vocabSizeOf(tok)).toBe(tok.get_vocab(true).size);
      expect(vocabSizeOf(tok)).toBe(expected);
    }
    expect(qwen3.vocabSize).toBe(151_669);
  });

  it("is still what get_vocab counts when one token stands at two ids, or an id has none", () => {
    const tok = libraryTokenizer(FIXTURE_TOKENIZER_DIR);
    const vocab = (tok.model as unknown as { vocab: string[] }).vocab;
    const length = vocab.length;
    vocab[7] = vocab[8]!;
    expect(vocabSizeOf(tok)).toBe(tok.get_vocab(true).size);
    expect(vocabSizeOf(tok)).toBe(length - 1);
    delete vocab[9];
    vocab.push("a token no id maps to");
    expect(vocabSizeOf(tok)).toBe(tok.get_vocab(true).size);
  });
});
