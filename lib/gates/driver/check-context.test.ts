import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/tokenizer/chat-template";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { cutReply, keptReply, scoringMessages } from "./check-context";

const tok = qwen3Tokenizer();
const words = (n: number, word: string) => Array.from({ length: n }, () => word).join(" ");

describe("scoringMessages", () => {
  it("keeps a short conversation whole, system prompt first, reply last", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello." },
      { role: "user", content: "Sum 2 and 2." },
    ];
    expect(scoringMessages({ messages, reply: "4" }, tok)).toEqual([
      ...messages,
      { role: "assistant", content: "4", reasoning: "", reasoning_content: "" },
    ]);
  });

  it("keeps the conversation's last tokens, cutting the oldest kept message to its tail", () => {
    const old = words(400, "alpha");
    const mid = words(300, "beta");
    const last = words(200, "gamma");
    const messages: ChatMessage[] = [
      { role: "system", content: words(600, "sys") },
      { role: "user", content: old },
      { role: "assistant", content: mid },
      { role: "user", content: last },
    ];
    const limits = { contextTokens: 600, replyChars: 2000 };
    const out = scoringMessages({ messages, reply: "ok" }, tok, limits);
    expect(out[0]).toEqual(messages[0]);
    const context = out.slice(1, -1);
    expect(context.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(context[1]!.content).toBe(mid);
    expect(context[2]!.content).toBe(last);
    const total = context.reduce((a, m) => a + tok.encode(m.content).length, 0);
    expect(total).toBe(600);
    expect(old.endsWith(context[0]!.content.trimStart())).toBe(true);
  });

  it("leads with the first user message when the last tokens hold no user query", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are an agent." },
      { role: "user", content: "Fix the failing test." },
      { role: "assistant", content: "Running the tests." },
      { role: "user", content: "<tool_response>\nok\n</tool_response>" },
      { role: "tool", content: words(500, "log") },
    ];
    const out = scoringMessages({ messages, reply: "Done." }, tok, { contextTokens: 100, replyChars: 2000 });
    expect(out.map((m) => m.role)).toEqual(["system", "user", "tool", "assistant"]);
    expect(out[1]!.content).toBe("Fix the failing test.");
    expect(tok.encode(out[2]!.content).length).toBeLessThanOrEqual(100);
  });

  it("cuts the reply to its first characters, counted as code points", () => {
    expect(cutReply("abcdef", 4)).toBe("abcd");
    expect(cutReply("😀😀😀", 2)).toBe("😀😀");
    expect(cutReply("short", 2000)).toBe("short");
    const out = scoringMessages({ messages: [{ role: "user", content: "q" }], reply: "x".repeat(5000) }, tok);
    expect(out[out.length - 1]!.content).toHaveLength(2000);
  });

  it("writes the reply out as continue_final_message keeps it", () => {
    expect(keptReply("plain\n\n")).toBe("plain\n\n");
    expect(keptReply("\n\nled by newlines\n")).toBe("led by newlines");
    expect(keptReply("  spaced  ")).toBe("spaced");
    const out = scoringMessages({ messages: [{ role: "user", content: "q" }], reply: "\n\nanswer\n" }, tok);
    expect(out[out.length - 1]).toMatchObject({ role: "assistant", content: "answer" });
  });

  it("refuses a conversation with no user message", () => {
    expect(() => scoringMessages({ messages: [{ role: "system", content: "s" }], reply: "r" }, tok)).toThrow(
      /no user message/,
    );
    expect(() => scoringMessages({ messages: [], reply: "r" }, tok)).toThrow(/no messages/);
  });
});
