import { describe, expect, it } from "vitest";
import { replyLengths, sampledConversations, type TimedRecordFields } from "./adapters";

const record = (over: Partial<TimedRecordFields>): TimedRecordFields => ({
  pass: 0,
  sessionId: "s1",
  turn: 2,
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  text: "hello",
  outputTokens: 1,
  finishReason: "stop",
  counted: true,
  ...over,
});

describe("adapters from judge records", () => {
  const records = [
    record({}),
    record({ pass: "warmup" }),
    record({ counted: false, turn: 3 }),
    record({ pass: 1, outputTokens: 9, finishReason: "length" }),
  ];

  it("keys answered timed replies for pairing and leaves out the warm-up and failures", () => {
    expect(replyLengths(records)).toEqual([
      { pass: 0, session: "s1", turn: 2, tokens: 1 },
      { pass: 1, session: "s1", turn: 2, tokens: 9 },
    ]);
  });

  it("gives each answered reply after its conversation, with how the engine ended it", () => {
    expect(sampledConversations(records)).toEqual([
      { messages: [{ role: "user", content: "hi" }], tools: [], reply: "hello", finishReason: "stop" },
      { messages: [{ role: "user", content: "hi" }], tools: [], reply: "hello", finishReason: "length" },
    ]);
  });
});
