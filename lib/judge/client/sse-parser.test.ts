import { describe, expect, it } from "vitest";
import { type SseEvent, SseParser } from "./sse-parser";

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

/**
 * The event-stream grammar read off the WHATWG text, on a whole decoded string: the oracle the byte parser must
 * match however the bytes are cut.
 */
function reference(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  let data: string[] = [];
  let event = "";
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = body.split(/\r\n|\r|\n/);
  // the text after the last line end is an unfinished line, dropped at the stream's end
  lines.pop();
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0) out.push({ event: event || "message", data: data.join("\n") });
      data = [];
      event = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
  }
  return out;
}

/** Feeds `bytes` cut at `cuts` (sorted offsets), each piece a fresh copy, and collects the events. */
function parseCut(bytes: Buffer, cuts: number[]): SseEvent[] {
  const p = new SseParser();
  const got: SseEvent[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    p.feed(Uint8Array.from(bytes.subarray(at, cut)), (event, data) => got.push({ event, data }));
    at = cut;
  }
  return [...got, ...p.end()];
}

/** A deterministic generator (LCG), so a failure names its seed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
}

const PIECES = [
  "data: ",
  "data:",
  "data",
  "event: error",
  "event:",
  "event: update",
  ": keep-alive",
  ":",
  "id: 9",
  "retry: 5",
  "dat",
  "datax: no",
  "Data: case",
  '{"choices":[{"delta":{"content":"hé"}}]}',
  "  two spaces",
  "[DONE]",
  "é中🙂",
  "\u00a0nbsp",
];
const ENDS = ["\n", "\r\n", "\r"];

/** A random event stream: lines of the pieces above, ended by LF, CRLF or CR, blank lines among them. */
function randomStream(seed: number): string {
  const r = rng(seed);
  let s = r(4) === 0 ? "\uFEFF" : "";
  const lines = 10 + r(30);
  for (let i = 0; i < lines; i++) {
    if (r(3) === 0) s += ENDS[r(3)];
    else s += PIECES[r(PIECES.length)]! + (r(2) === 0 ? PIECES[r(PIECES.length)]! : "") + ENDS[r(3)];
  }
  if (r(2) === 0) s += "data: unfinished";
  return s;
}

describe("SseParser on bytes", () => {
  it("parses comments, CRLF/CR/LF ends, multi-line data, named events", () => {
    expect(new SseParser().push(stream)).toEqual(expected);
    expect(reference(stream)).toEqual(expected);
  });

  it("gives the same events however the bytes are split across transport chunks", () => {
    const bytes = Buffer.from(stream);
    for (let cut = 1; cut < bytes.length; cut++) expect(parseCut(bytes, [cut]), `split at ${cut}`).toEqual(expected);
    expect(
      parseCut(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(expected);
  });

  it("gives the same events cut at every pair of bytes", () => {
    const bytes = Buffer.from('\uFEFFdata: a\r\n: c\r\ndata: é🙂\r\n\r\nevent: x\rdata\r\r{"b":2}\n');
    for (let i = 1; i < bytes.length; i++) {
      for (let j = i; j < bytes.length; j++) {
        expect(parseCut(bytes, [i, j]), `cut at ${i}, ${j}`).toEqual([
          { event: "message", data: "a\né🙂" },
          { event: "x", data: "" },
        ]);
      }
    }
  });

  it("matches the grammar on random streams cut at random places", () => {
    let events = 0;
    let named = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const text = randomStream(seed);
      const bytes = Buffer.from(text, "utf8");
      const r = rng(seed * 7919);
      const cuts = new Set<number>();
      const n = r(12);
      for (let k = 0; k < n; k++) cuts.add(1 + r(Math.max(1, bytes.length - 1)));
      const sorted = [...cuts].filter((c) => c < bytes.length).sort((a, b) => a - b);
      const want = reference(text);
      expect(parseCut(bytes, sorted), `seed ${seed}: ${JSON.stringify(text)}`).toEqual(want);
      events += want.length;
      named += want.filter((e) => e.event !== "message").length;
    }
    // the streams exercise the grammar: many events, some of them named
    expect(events).toBeGreaterThan(300);
    expect(named).toBeGreaterThan(50);
  });

  it("skips a byte-order mark only at the stream's start, split or whole", () => {
    const bom = Buffer.from("\uFEFFdata: x\n\n\uFEFFdata: y\n\n");
    for (let cut = 1; cut < 4; cut++) {
      expect(parseCut(bom, [cut])).toEqual([{ event: "message", data: "x" }]);
    }
    // past the start a BOM is part of the field name: "\uFEFFdata" is not "data"
    expect(new SseParser().push("data: x\n\n\uFEFFdata: y\n\n")).toEqual([{ event: "message", data: "x" }]);
  });

  it("joins data lines with LF, removes one leading space, and takes a field without a colon as empty", () => {
    expect(new SseParser().push("data\ndata:  two\ndata:x\n\n")).toEqual([{ event: "message", data: "\n two\nx" }]);
    expect(new SseParser().push("data:\n\n")).toEqual([{ event: "message", data: "" }]);
  });

  it("dispatches no event without data, and forgets its name", () => {
    expect(new SseParser().push("event: error\n\ndata: after\n\n")).toEqual([{ event: "message", data: "after" }]);
    expect(new SseParser().push(": only a comment\n\n\n\n")).toEqual([]);
  });

  it("drops an event without its closing blank line", () => {
    const p = new SseParser();
    expect([...p.push("data: a\n\ndata: b\n"), ...p.end()]).toEqual([{ event: "message", data: "a" }]);
  });

  it("keeps what it still needs from a chunk when the caller reuses the chunk's memory", () => {
    const p = new SseParser();
    const got: SseEvent[] = [];
    const sink = (event: string, data: string) => got.push({ event, data });
    const chunk = Buffer.from('data: {"held":true}\n');
    p.feed(chunk, sink);
    chunk.fill(0x21);
    p.feed(Buffer.from("\ndata: half"), sink);
    const tail = Buffer.from("-done\n\n");
    p.feed(tail, sink);
    tail.fill(0x21);
    expect(got).toEqual([
      { event: "message", data: '{"held":true}' },
      { event: "message", data: "half-done" },
    ]);
  });

  it("grows its buffers for long lines and many data lines", () => {
    const long = "x".repeat(100_000);
    const text = `data: ${long}\n${"data: y\n".repeat(500)}\n`;
    const bytes = Buffer.from(text);
    const cuts = Array.from({ length: Math.floor(bytes.length / 997) }, (_, i) => (i + 1) * 997);
    expect(parseCut(bytes, cuts)).toEqual([{ event: "message", data: [long, ...Array(500).fill("y")].join("\n") }]);
  });

  it("hands each event to the sink as its blank line is parsed, in order", () => {
    const p = new SseParser();
    const seen: string[] = [];
    p.feed(Buffer.from("data: 1\n\ndata: 2\n\ndata: 3"), (_, data) => seen.push(data));
    expect(seen).toEqual(["1", "2"]);
    p.feed(Buffer.from("\n\n"), (_, data) => seen.push(data));
    expect(seen).toEqual(["1", "2", "3"]);
  });
});
