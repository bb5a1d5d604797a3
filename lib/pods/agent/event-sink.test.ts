import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openEventSink } from "./event-sink";
import { parseAgentExit, parseAgentLine, parsePodLine } from "./events";

const dir = mkdtempSync(join(tmpdir(), "event-sink-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the agent's event sink", () => {
  it("numbers the events of an event file from 1, and ends it with how the agent ended", () => {
    const file = join(dir, "events.jsonl");
    const sink = openEventSink(file, () => expect.unreachable("nothing goes to stdout"));
    sink.emit({ type: "phase", phase: "candidate-timed", engine: "candidate" });
    sink.emit({ type: "log", level: "info", message: "ready" });
    sink.exit(0);
    sink.emit({ type: "log", level: "info", message: "after the end: dropped" });
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    expect(lines.map(parsePodLine)).toEqual([
      { seq: 1, event: { type: "phase", phase: "candidate-timed", engine: "candidate" } },
      { seq: 2, event: { type: "log", level: "info", message: "ready" } },
      null,
    ]);
    expect(parseAgentExit(lines[2]!)).toEqual({ type: "agent-exit", code: 0 });
    expect(lines.slice(0, 2).map(parseAgentExit)).toEqual([null, null]);
    expect(sink.emitted).toBe(2);
  });

  it("drops what is emitted once sealed (a pod at its deadline), and says why it ended", () => {
    const file = join(dir, "deadline.jsonl");
    const sink = openEventSink(file, () => undefined);
    sink.emit({ type: "log", level: "error", message: "the pod reached its deadline of 9 s: it ends" });
    sink.seal();
    sink.emit({ type: "result", outcome: "scored", reason: "the candidate engine died during busy", record: null });
    sink.exit(124, "deadline");
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(parseAgentExit(lines[1]!)).toEqual({ type: "agent-exit", code: 124, reason: "deadline" });
  });

  it("writes numbered lines to stdout without an event file, which readers of the plain format still parse", () => {
    const out: string[] = [];
    const sink = openEventSink(undefined, (line) => out.push(line));
    sink.emit({ type: "engine", engine: "stock", state: "healthy" });
    sink.exit(0);
    expect(out).toEqual(['{"type":"engine","engine":"stock","state":"healthy","seq":1}\n']);
    expect(parseAgentLine(out[0]!)).toEqual({ type: "engine", engine: "stock", state: "healthy" });
    expect(parsePodLine('{"type":"phase","phase":"gates"}')).toEqual({ event: { type: "phase", phase: "gates" } });
    expect(parsePodLine('{"type":"phase","phase":"gates","seq":-3}')).toEqual({
      event: { type: "phase", phase: "gates" },
    });
  });
});
