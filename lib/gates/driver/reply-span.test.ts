import { describe, expect, it } from "vitest";
import { type ChatMessage, ChatTemplate, type ToolSchema } from "@/lib/tokenizer/chat-template";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { scoringMessages } from "./check-context";
import { renderForScoring } from "./reply-span";

const tok = qwen3Tokenizer();
const template = new ChatTemplate(tok);

const conversation: ChatMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "List the files." },
  { role: "assistant", content: "I'll run ls." },
  { role: "tool", content: "a.ts\nb.ts" },
];
const tools: ToolSchema[] = [
  { type: "function", function: { name: "bash", description: "run a command", parameters: {} } },
];

/** The reply as Hugging Face's continue_final_message keeps it. */
const kept = (reply: string) => (reply.trimStart() === reply ? reply : reply.trim());

describe("renderForScoring", () => {
  const replies = [
    "Two files: a.ts and b.ts.",
    "\n\nLeading newlines are stripped by the template.",
    "Trailing whitespace stays when there is none leading.\n\n",
    "unicode: 你好，世界 😀 — done",
    '<tool_call>\n{"name": "bash"}\n</tool_call>',
    "x",
  ];
  for (const reply of replies) {
    it(`finds the reply's tokens: ${JSON.stringify(reply.slice(0, 30))}`, () => {
      const messages: ChatMessage[] = [...conversation, { role: "assistant", content: reply }];
      const p = renderForScoring(messages, tools, template, tok);
      // the prompt before the reply is exactly what the engine saw when it generated the reply
      const generation = template.render(conversation, { tools, addGenerationPrompt: true, enableThinking: false });
      expect(p.text).toBe(generation + kept(reply).replace(/^\n+/, ""));
      expect(tok.encode(p.text)).toEqual(p.ids);
      const replyText = tok.decode(p.ids.slice(p.replyStart));
      const expected = kept(reply).replace(/^\n+/, "");
      // the reply's tokens decode to the reply, or to a token straddling its start and the reply
      expect(replyText.endsWith(expected)).toBe(true);
      expect(replyText.length - expected.length).toBeLessThanOrEqual(2);
      expect(tok.decode(p.ids.slice(0, p.replyStart))).toBe(p.text.slice(0, p.text.length - replyText.length));
    });
  }

  // @huggingface/jinja 0.5.11 ignores lstrip's argument and strips all leading whitespace where Python's
  // lstrip('\n') keeps spaces: whatever the template renders, the prefix stays the generation prompt.
  for (const reply of ["  two leading spaces", " \nspace then newline"]) {
    it(`keeps the generation prompt before a reply led by spaces: ${JSON.stringify(reply)}`, () => {
      const p = renderForScoring([...conversation, { role: "assistant", content: reply }], tools, template, tok);
      const generation = template.render(conversation, { tools, addGenerationPrompt: true, enableThinking: false });
      expect(p.text.startsWith(generation)).toBe(true);
      expect(p.text.endsWith(reply.trim())).toBe(true);
      expect(tok.decode(p.ids.slice(p.replyStart)).endsWith(reply.trim())).toBe(true);
      expect(tok.decode(p.ids.slice(0, p.replyStart)).length).toBeGreaterThanOrEqual(generation.length - 2);
    });
  }

  it("scores a reply that contains a think block verbatim after the generation prompt", () => {
    const reply = "The the the\n<think>\n\n</think>\n\nYes, it";
    const messages = scoringMessages({ messages: conversation, tools, reply }, tok);
    const p = renderForScoring(messages, tools, template, tok);
    const generation = template.render(conversation, { tools, addGenerationPrompt: true, enableThinking: false });
    expect(p.text).toBe(generation + reply);
    expect(tok.decode(p.ids.slice(p.replyStart))).toBe(reply);
  });

  it("renders tools into the system prompt and leaves no end-of-turn after the reply", () => {
    const p = renderForScoring([...conversation, { role: "assistant", content: "ok" }], tools, template, tok);
    expect(p.text).toContain("# Tools");
    expect(p.text.endsWith("<think>\n\n</think>\n\nok")).toBe(true);
    expect(p.ids[p.ids.length - 1]).not.toBe(tok.eosId);
  });

  it("refuses an empty reply", () => {
    expect(() =>
      renderForScoring([...conversation, { role: "assistant", content: " \n" }], undefined, template, tok),
    ).toThrow(/does not appear/);
  });
});
