import { describe, expect, it } from "vitest";
import { SseParser } from "./sse-parser";

const stream =
  ": comment first\r\n" +
  'data: {"a":1}\r\n\r\n' +
  "event: error\n" +
  "data: line one\n" +
  "data: line two\n\n" +
  "data:no-space\r\r" +
  "data: é中🙂\n\n" +
  "id: 7\nretry: 10\n: ping\n\n" +
  "data: [DONE]\n\n";

const expected = [
  { event: "message", data: '{"a":1}' },
  { event: "error", data: "line one\nline two" },
  { event: "message", data: "no-space" },
  { event: "message", data: "é中🙂" },
  { event: "message", data: "[DONE]" },
];

describe("SseParser", () => {
  it("parses comments, CRLF/CR/LF ends, multi-line data, named events", () => {
    expect(new SseParser().push(stream)).toEqual(expected);
  });

  it("gives the same events however the bytes are split across transport chunks", () => {
    const bytes = Buffer.from(stream);
    for (let cut = 1; cut < bytes.length; cut++) {
      const p = new SseParser();
      const got = [...p.push(bytes.subarray(0, cut)), ...p.push(bytes.subarray(cut)), ...p.end()];
      expect(got, `split at ${cut}`).toEqual(expected);
    }
    const p = new SseParser();
    const got = [];
    for (let i = 0; i < bytes.length; i++) got.push(...p.push(bytes.subarray(i, i + 1)));
    expect(got).toEqual(expected);
  });

  it("drops an event without its closing blank line", () => {
    const p = new SseParser();
    expect([...p.push("data: a\n\ndata: b\n"), ...p.end()]).toEqual([{ event: "message", data: "a" }]);
  });
});
