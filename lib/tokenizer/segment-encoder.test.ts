import { describe, expect, it } from "vitest";
import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { loadTargetTokenizer, type TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { templateMarks } from "@/lib/tokenizer/template-marks";
import { SegmentEncoder, turnStartToken, withTurnCache } from "./segment-encoder";

const tools = [
  {
    type: "function" as const,
    function: { name: "bash", description: "Run a command", parameters: { type: "object" } },
  },
];
const messages = [
  { role: "system" as const, content: "You are terse.  Trailing spaces   " },
  { role: "user" as const, content: "Fix the bug in <|im_start|>-looking text? ünïcödé 😀\n\n" },
  { role: "assistant" as const, content: "Let me look.\n\n```py\nprint('hi')\n```" },
  { role: "tool" as const, content: "<returncode>0</returncode>\n<output>hi</output>" },
  { role: "user" as const, content: "  leading spaces and\ttabs" },
];

describe.each([
  ["Qwen3", () => qwen3Tokenizer()],
  ["the fixture tokenizer", () => loadTargetTokenizer(FIXTURE_TOKENIZER_DIR)],
])("turn-by-turn prompt encoding with %s", (_, load) => {
  it("cuts before the token that opens the template's messages, with exactly the ids of the whole prompt", () => {
    const tok = load();
    const template = new ChatTemplate(tok);
    const start = turnStartToken(tok, templateMarks(template, tok));
    expect(start).toBe("<|im_start|>");
    const enc = new SegmentEncoder(tok, start, 8);
    for (let n = 1; n <= messages.length; n++) {
      const text = template.render(messages.slice(0, n), { tools, addGenerationPrompt: true });
      expect(enc.encode(text)).toEqual(tok.encode(text));
      expect(enc.encode(text)).toEqual(tok.encode(text));
    }
    expect(enc.encode("")).toEqual([]);
    expect(enc.encode("plain text without turns")).toEqual(tok.encode("plain text without turns"));
  });

  it("serves a tokenizer whose encode gives the same ids, prefixes cut mid-turn included", () => {
    const tok = load();
    const template = new ChatTemplate(tok);
    const cached = withTurnCache(tok, template);
    for (let n = 1; n <= messages.length; n++) {
      const text = template.render(messages.slice(0, n), { tools, addGenerationPrompt: false });
      for (const end of [text.length, text.length - 3, Math.floor(text.length / 2)]) {
        expect(cached.encode(text.slice(0, end))).toEqual(tok.encode(text.slice(0, end)));
      }
    }
    expect(cached.decode(cached.encode("ünïcödé 😀"))).toBe("ünïcödé 😀");
    expect(cached.eosId).toBe(tok.eosId);
  });
});

describe("the turn-start token", () => {
  const tok = qwen3Tokenizer();
  const marks = templateMarks(new ChatTemplate(tok), tok);
  const withAdded = (extra: TargetTokenizer["addedTokens"]): Pick<TargetTokenizer, "addedTokens"> => ({
    addedTokens: [...tok.addedTokens, ...extra],
  });
  const token = { id: 1, special: true, lstrip: false, rstrip: false, normalized: false };

  it("is refused where a cut before it could change the ids", () => {
    // it would eat the whitespace before it
    const stripping = {
      addedTokens: tok.addedTokens.map((t) => (t.content === "<|im_start|>" ? { ...t, lstrip: true } : t)),
    };
    expect(turnStartToken(stripping, marks)).toBeNull();
    // another added token could be matched across the cut
    expect(turnStartToken(withAdded([{ ...token, content: "x<|im" }]), marks)).toBeNull();
    expect(turnStartToken(withAdded([{ ...token, content: "a<|im_start|>b" }]), marks)).toBeNull();
    // a longer token that starts where it does is matched there too: the cut stays a split
    expect(turnStartToken(withAdded([{ ...token, content: "<|im_start|>assistant" }]), marks)).toBe("<|im_start|>");
  });

  it("is none for a template whose messages open with plain text, and prompts are then encoded whole", () => {
    const plain = new ChatTemplate({
      chatTemplate: "{% for m in messages %}### {{ m.role }}: {{ m.content }}\n{% endfor %}",
      templateTokens: {},
    });
    expect(turnStartToken(tok, templateMarks(plain, tok))).toBeNull();
    const enc = new SegmentEncoder(tok, null);
    const text = plain.render(messages, { addGenerationPrompt: false });
    expect(enc.encode(text)).toEqual(tok.encode(text));
  });
});
