import { describe, expect, it } from "vitest";
import { LineSplitter, LogCursor, parseTimestampedLine, sinceTimeFor } from "./log-lines";

describe("LineSplitter", () => {
  it("joins a line split across chunks and keeps the unterminated tail for later", () => {
    const s = new LineSplitter();
    expect(s.push('{"type":"pha')).toEqual([]);
    expect(s.push('se","phase":"x"}\nnext')).toEqual(['{"type":"phase","phase":"x"}']);
    expect(s.push(" line\r\n")).toEqual(["next line"]);
    expect(s.push("tail")).toEqual([]);
    expect(s.flush()).toEqual(["tail"]);
  });

  it("joins a UTF-8 character split across byte chunks", () => {
    const bytes = Buffer.from("héllo\n", "utf8");
    const s = new LineSplitter();
    expect(s.push(bytes.subarray(0, 2))).toEqual([]);
    expect(s.push(bytes.subarray(2))).toEqual(["héllo"]);
  });

  it("drops a partial line when a stream is resumed", () => {
    const s = new LineSplitter();
    s.push("half a li");
    s.discardPartial();
    expect(s.push("whole\n")).toEqual(["whole"]);
  });
});

describe("timestamped log lines", () => {
  it("parses RFC 3339 nanosecond timestamps exactly", () => {
    const l = parseTimestampedLine('2026-11-29T11:36:50.123456789Z {"a":1}');
    expect(l).toEqual({ at: 1795952210123456789n, text: '{"a":1}' });
    expect(parseTimestampedLine("2026-11-29T11:36:50.5Z x")?.at).toBe(1795952210500000000n);
    expect(parseTimestampedLine("2026-11-29T12:36:50+01:00 x")?.at).toBe(1795952210000000000n);
    expect(parseTimestampedLine("no timestamp here")).toBeNull();
  });

  it("resumes from the whole second at or before the last line", () => {
    expect(sinceTimeFor(1795952210999999999n)).toBe("2026-11-29T11:36:50Z");
  });

  it("yields each line once across a reconnect, even lines sharing a timestamp", () => {
    const c = new LogCursor();
    const at = (ns: bigint, text: string) => ({ at: ns, text });
    expect(c.accept(at(10n, "a"))).toBe(true);
    expect(c.accept(at(20n, "b"))).toBe(true);
    expect(c.accept(at(20n, "c"))).toBe(true);
    c.rewind();
    expect(
      [at(10n, "a"), at(20n, "b"), at(20n, "c"), at(20n, "d"), at(30n, "e")]
        .filter((l) => c.accept(l))
        .map((l) => l.text),
    ).toEqual(["d", "e"]);
  });
});
