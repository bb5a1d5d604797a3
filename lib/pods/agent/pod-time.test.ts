import { describe, expect, it } from "vitest";
import { podTimeBreakdown, type StoredEvent } from "./pod-time";

/** A pod's events at the given seconds after the evaluation moved to running. */
function timeline(steps: [number, string, Record<string, unknown>][]): StoredEvent[] {
  const t0 = Date.parse("2026-12-01T00:00:00Z");
  return [
    { type: "status", data: { status: "running" }, at: t0 },
    ...steps.map(([s, type, data]) => ({ type, data, at: t0 + s * 1000 })),
  ];
}

const pass = (engine: string, workload: string, n: number) => ({ engine, workload, pass: n, fixedSeconds: 10 });

describe("podTimeBreakdown", () => {
  it("splits the pod's time into starts, warm-ups, fixed seconds, graces, waits, checks and the end", () => {
    const b = podTimeBreakdown(
      timeline([
        [2, "phase", { phase: "candidate-timed", engine: "candidate" }],
        [2, "engine", { engine: "candidate", state: "starting" }],
        [5, "engine", { engine: "candidate", state: "healthy" }],
        [7, "pass-started", pass("candidate", "solo", 0)],
        [12, "pass-progress", { engine: "candidate", workload: "solo", pass: 0 }],
        [18, "pass-ended", { engine: "candidate", workload: "solo", pass: 0 }],
        [19, "pass-started", pass("candidate", "solo", 1)],
        [29, "pass-ended", { engine: "candidate", workload: "solo", pass: 1 }],
        [29, "engine", { engine: "candidate", state: "stopping" }],
        [30, "engine", { engine: "candidate", state: "stopped" }],
        [30, "phase", { phase: "device-idle" }],
        [32, "phase", { phase: "stock-timed", engine: "stock" }],
        [32, "engine", { engine: "stock", state: "starting" }],
        [34, "engine", { engine: "stock", state: "healthy" }],
        [35, "pass-started", pass("stock", "solo", 0)],
        [46, "pass-ended", { engine: "stock", workload: "solo", pass: 0 }],
        [46, "engine", { engine: "stock", state: "stopping" }],
        [47, "engine", { engine: "stock", state: "stopped" }],
        [47, "phase", { phase: "checks-candidate", engine: "candidate" }],
        [47, "engine", { engine: "candidate", state: "starting" }],
        [50, "engine", { engine: "candidate", state: "healthy" }],
        [50, "check-progress", { engine: "candidate", check: "greedy", done: 0, total: 2 }],
        [52, "check-progress", { engine: "candidate", check: "greedy", done: 2, total: 2 }],
        [52, "check-progress", { engine: "candidate", check: "fidelity", done: 0, total: 2 }],
        [54, "engine", { engine: "candidate", state: "stopping" }],
        [55, "engine", { engine: "candidate", state: "stopped" }],
        [56, "phase", { phase: "checks-stock", engine: "stock" }],
        [56, "engine", { engine: "stock", state: "starting" }],
        [58, "engine", { engine: "stock", state: "healthy" }],
        [58, "check-progress", { engine: "stock", check: "sampled-candidate", done: 0, total: 2 }],
        [63, "engine", { engine: "stock", state: "stopping" }],
        [64, "engine", { engine: "stock", state: "stopped" }],
        [64.5, "phase", { phase: "gates" }],
        [65, "status", { status: "scored" }],
      ]),
    );
    expect(b.totalSeconds).toBe(65);
    expect(b.timedSeconds).toBe(30);
    expect(b.outsideShare).toBeCloseTo(35 / 65, 10);
    expect(b.byKind).toEqual({
      "pod-start": 2,
      "engine-start": 3 + 2 + 3 + 2,
      "warm-up": 2 + 1,
      "timed-pass": 30,
      grace: 1 + 1,
      "pass-setup": 1,
      // the last half second: the stock engine had stopped, the gates had not begun
      "engine-stop": 1 + 1 + 1 + 1 + 0.5,
      "device-idle": 2 + 1,
      checks: 2 + 2 + 5,
      "gates-and-teardown": 0.5,
    });
    expect(b.segments.slice(0, 7)).toEqual([
      { kind: "pod-start", label: "pod start (agent, tokenizer, sandbox)", seconds: 2 },
      { kind: "engine-start", label: "candidate engine start", seconds: 3 },
      { kind: "warm-up", label: "candidate solo warm-up", seconds: 2 },
      // a pass-progress event inside the pass does not split it
      { kind: "timed-pass", label: "candidate solo pass 1", seconds: 10 },
      { kind: "grace", label: "candidate solo pass 1 grace", seconds: 1 },
      { kind: "pass-setup", label: "candidate between passes", seconds: 1 },
      { kind: "timed-pass", label: "candidate solo pass 2", seconds: 10 },
    ]);
    expect(b.segments.filter((s) => s.kind === "checks").map((s) => [s.label, s.seconds])).toEqual([
      ["candidate checks: greedy", 2],
      ["candidate checks: fidelity", 2],
      ["stock checks: sampled-candidate", 5],
    ]);
    expect(b.segments.filter((s) => s.kind === "device-idle").map((s) => s.label)).toEqual([
      "device-idle wait before the stock engine",
      "device-idle wait between the checks",
    ]);
  });

  it("keeps a pass's fixed end to its own pass when its start was stored late", () => {
    const b = podTimeBreakdown(
      timeline([
        [1, "phase", { phase: "candidate-timed", engine: "candidate" }],
        [1, "engine", { engine: "candidate", state: "starting" }],
        [2, "engine", { engine: "candidate", state: "healthy" }],
        // relayed half a second late: its fixed end (10.5) falls after its pass-ended and inside the next pass
        [0.5 + 2, "pass-started", pass("candidate", "solo", 0)],
        [12.2, "pass-ended", { engine: "candidate", workload: "solo", pass: 0 }],
        [12.3, "pass-started", pass("candidate", "solo", 1)],
        [22.3, "pass-ended", { engine: "candidate", workload: "solo", pass: 1 }],
        [22.5, "status", { status: "scored" }],
      ]),
    );
    expect(b.segments.map((s) => [s.label, Number(s.seconds.toFixed(3))])).toEqual([
      ["pod start (agent, tokenizer, sandbox)", 1],
      ["candidate engine start", 1],
      ["candidate solo warm-up", 0.5],
      ["candidate solo pass 1", 9.7],
      ["candidate between passes", 0.1],
      ["candidate solo pass 2", 10],
      ["candidate after its last pass", 0.2],
    ]);
  });

  it("counts the pod's time only from its move to running to its final status", () => {
    const t0 = Date.parse("2026-12-01T00:00:00Z");
    const b = podTimeBreakdown([
      { type: "status", data: { status: "fetching" }, at: t0 - 5000 },
      { type: "status", data: { status: "running" }, at: t0 },
      { type: "phase", data: { phase: "candidate-timed" }, at: t0 + 1000 },
      { type: "engine", data: { engine: "candidate", state: "starting" }, at: t0 + 1000 },
      { type: "engine", data: { engine: "candidate", state: "start-failed" }, at: t0 + 4000 },
      { type: "status", data: { status: "scored" }, at: t0 + 4500 },
      { type: "log", data: { level: "info" }, at: t0 + 9000 },
    ]);
    expect(b.totalSeconds).toBe(4.5);
    expect(b.timedSeconds).toBe(0);
    expect(b.outsideShare).toBe(1);
  });

  it("ends a pass cut short with the pod", () => {
    const b = podTimeBreakdown(
      timeline([
        [1, "phase", { phase: "candidate-timed", engine: "candidate" }],
        [1, "engine", { engine: "candidate", state: "starting" }],
        [2, "engine", { engine: "candidate", state: "healthy" }],
        [3, "pass-started", pass("candidate", "solo", 0)],
        [7, "status", { status: "cancelled" }],
      ]),
    );
    expect(b.totalSeconds).toBe(7);
    expect(b.timedSeconds).toBe(4);
    expect(b.segments.reduce((sum, s) => sum + s.seconds, 0)).toBe(7);
  });

  it("refuses an evaluation that has not ended", () => {
    expect(() => podTimeBreakdown(timeline([[1, "phase", { phase: "candidate-timed" }]]))).toThrow(/not ended/);
  });
});
