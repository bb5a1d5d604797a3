import { describe, expect, it } from "vitest";
import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { defaultTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";
import { SegmentEncoder } from "./segment-encoder";

describe("turn-by-turn prompt encoding", () => {
  it("gives exactly the ids of encoding the whole prompt, with tools, tool turns and odd text", () => {
    const tok = defaultTokenizer();
    const template = new ChatTemplate(tok.chatTemplate);
    const enc = new SegmentEncoder(tok, 8);
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
    for (let n = 1; n <= messages.length; n++) {
      const text = template.render(messages.slice(0, n), { tools, addGenerationPrompt: true });
      expect(enc.encode(text)).toEqual(tok.encode(text));
      expect(enc.encode(text)).toEqual(tok.encode(text));
    }
    expect(enc.encode("")).toEqual([]);
    expect(enc.encode("plain text without turns")).toEqual(tok.encode("plain text without turns"));
  });
});
