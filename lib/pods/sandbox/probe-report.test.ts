import { describe, expect, it } from "vitest";
import { judgeProbeReport, parseProbeReport } from "./probe-report";
import { SANDBOX_PROPERTIES } from "./properties";

const line = (fields: Record<string, unknown>) =>
  `2026-12-01T04:08:21.311Z ARENA-PROBE ${JSON.stringify({ start: "309-1", kind: "attempt", detail: "EPERM", ...fields })}`;

/** One attempt, failed, of every attack each property lists: what a sandbox that holds produces. */
const held = SANDBOX_PROPERTIES.flatMap((p) =>
  p.probe.map((attack) => line({ attack, property: p.id, target: `${attack} target`, achieved: false })),
);

describe("the probe's report", () => {
  it("is read from the log around it, notes and heartbeats aside", () => {
    const log = [
      "2026-12-01T04:08:21.001Z INFO engine starting",
      '2026-12-01T04:08:21.002Z ARENA-PROBE {"attack": "identity", "detail": "uid=995", "kind": "note", "start": "309-1", "target": "self"}',
      line({ attack: "connect", property: "network-loopback-only", target: "127.0.0.1:6379", achieved: false }),
      "2026-12-01T04:08:22.000Z ARENA-PROBE-HEARTBEAT 1796098069.004 setsid pid=61",
    ].join("\n");
    expect(parseProbeReport(log)).toEqual([
      { kind: "note", attack: "identity", detail: "uid=995", start: "309-1", target: "self" },
      {
        kind: "attempt",
        attack: "connect",
        property: "network-loopback-only",
        target: "127.0.0.1:6379",
        achieved: false,
        detail: "EPERM",
        start: "309-1",
      },
    ]);
  });

  it("holds every property when each of its attacks was tried and none got anything", () => {
    const verdicts = judgeProbeReport(parseProbeReport(held.join("\n")));
    expect(verdicts.map((v) => v.property)).toEqual(
      SANDBOX_PROPERTIES.filter((p) => p.probe.length > 0).map((p) => p.id),
    );
    expect(verdicts.filter((v) => !v.held)).toEqual([]);
  });

  it("breaks a property on one attempt that got through, and never holds one on no evidence", () => {
    const breach = line({
      attack: "read",
      property: "no-pool",
      target: "/srv/.arena/data/pools/test.jsonl",
      achieved: true,
    });
    const verdicts = judgeProbeReport(
      parseProbeReport([...held.filter((l) => !l.includes('"attack":"fork"')), breach].join("\n")),
    );
    const byId = Object.fromEntries(verdicts.map((v) => [v.property, v]));
    expect(byId["no-pool"]).toMatchObject({ held: false, breaches: [expect.objectContaining({ achieved: true })] });
    expect(byId["process-limit"]).toMatchObject({ held: false, untried: ["fork"], attempts: 0 });
    expect(byId["memory-limit"]!.held).toBe(true);
  });

  it("refuses a line that names a property the list does not have", () => {
    expect(() =>
      parseProbeReport(line({ attack: "read", property: "no-such", target: "/x", achieved: false })),
    ).toThrow(/does not parse/);
  });
});
