import { describe, expect, it } from "vitest";
import { applyEvent, initialLiveState, type LiveState } from "./live-progress";

const fold = (events: [string, unknown, number][], start: LiveState = initialLiveState("queued", null, 3)) =>
  events.reduce((s, [type, data, seq]) => applyEvent(s, type, data, seq), start);

describe("live progress", () => {
  it("follows an evaluation from the queue through a pass to its result", () => {
    const s = fold([
      ["state", { id: "sub", evaluation: { status: "queued", phase: null } }, 0],
      ["status", { status: "fetching", phase: null, reason: null }, 2],
      ["phase", { phase: "timed", engine: "candidate" }, 3],
      ["engine", { engine: "candidate", state: "healthy" }, 4],
      ["pass-started", { engine: "candidate", workload: "solo", pass: 1, fixedSeconds: 150 }, 5],
      [
        "pass-progress",
        {
          engine: "candidate",
          workload: "solo",
          pass: 1,
          elapsedSeconds: 60,
          fixedSeconds: 150,
          requestsDone: 12,
          tokensPerSecond: 210.5,
        },
        6,
      ],
      ["memory", { usedMib: 150000, totalMib: 183359 }, 7],
      ["log", { level: "warn", message: "slow start" }, 8],
    ]);
    expect(s.status).toBe("fetching");
    expect(s.queuePosition).toBeNull();
    expect(s.phase).toBe("timed");
    expect(s.engine).toEqual({ name: "candidate", state: "healthy", detail: null });
    expect(s.current).toMatchObject({
      workload: "solo",
      pass: 1,
      elapsedSeconds: 60,
      requests: 12,
      tokensPerSecond: 210.5,
    });
    expect(s.memory).toEqual({ usedMib: 150000, totalMib: 183359 });
    expect(s.log).toEqual(["warn: slow start"]);
    expect(s.finished).toBe(false);

    const ended = fold(
      [
        [
          "pass-ended",
          { engine: "candidate", workload: "solo", pass: 1, speed: 205, requests: 30, failed: 0, outputTokens: 9000 },
          9,
        ],
        ["result", { outcome: "scored", reason: null, record: {} }, 10],
      ],
      s,
    );
    expect(ended.passes).toHaveLength(1);
    expect(ended.passes[0]).toMatchObject({
      done: true,
      tokensPerSecond: 205,
      requests: 30,
      failed: 0,
      elapsedSeconds: 150,
    });
    expect(ended.finished).toBe(true);
  });

  it("ignores an event replayed after a reconnect, and events it cannot read", () => {
    const once = fold([["log", { level: "info", message: "one" }, 5]]);
    const again = fold(
      [
        ["log", { level: "info", message: "one" }, 5],
        ["log", "not an object", 6],
        ["pass-progress", { engine: "candidate" }, 7],
        ["mystery", { a: 1 }, 8],
      ],
      once,
    );
    expect(again.log).toEqual(["one"]);
    expect(again.passes).toEqual([]);
    expect(again.lastSeq).toBe(8);
  });

  it("finishes on a terminal status", () => {
    expect(fold([["status", { status: "failed", reason: "the engine died" }, 2]])).toMatchObject({
      status: "failed",
      reason: "the engine died",
      finished: true,
    });
    expect(initialLiveState("scored", null, null).finished).toBe(true);
  });

  it("folds the queue's pushed standing while queued, and drops it once the evaluation leaves the queue", () => {
    const standing = {
      position: 3,
      ahead: 2,
      running: 1,
      slots: 1,
      estimate: {
        startsAt: "2026-12-01T10:10:00.000Z",
        finishesAt: "2026-12-01T10:12:00.000Z",
        basis: [{ profile: "ci", medianSeconds: 120, runs: 4 }],
      },
      unmeasured: [],
    };
    const waiting = fold([["queue", standing, 0]]);
    expect(waiting.queuePosition).toBe(3);
    expect(waiting.queue).toEqual(standing);
    const closer = fold(
      [["queue", { ...standing, position: 2, ahead: 1, estimate: null, unmeasured: ["ci"] }, 0]],
      waiting,
    );
    expect([closer.queuePosition, closer.queue?.estimate, closer.queue?.unmeasured]).toEqual([2, null, ["ci"]]);
    const started = fold([["status", { status: "fetching" }, 4]], closer);
    expect([started.queuePosition, started.queue]).toEqual([null, null]);
    // a late standing for an evaluation no longer queued changes nothing
    expect(fold([["queue", standing, 0]], started)).toEqual(started);
  });

  it("shows each check's progress, and no pass as current once a new phase or the checks begin", () => {
    const timed = fold([
      ["status", { status: "running" }, 1],
      ["pass-started", { engine: "stock", workload: "busy", pass: 2, fixedSeconds: 240 }, 2],
    ]);
    expect(timed.current).not.toBeNull();
    const checking = fold(
      [
        ["phase", { phase: "checks-candidate", engine: "candidate" }, 3],
        ["check-progress", { engine: "candidate", check: "greedy", done: 0, total: 64 }, 4],
        ["check-progress", { engine: "candidate", check: "greedy", done: 40, total: 64 }, 5],
        ["check-progress", { engine: "candidate", check: "fidelity", done: 0, total: 64 }, 6],
        ["check-progress", { engine: "candidate", check: "greedy", total: 64 }, 7],
      ],
      timed,
    );
    expect(checking.current).toBeNull();
    expect(checking.phase).toBe("checks-candidate");
    expect(checking.checks).toEqual([
      { engine: "candidate", check: "greedy", done: 40, total: 64 },
      { engine: "candidate", check: "fidelity", done: 0, total: 64 },
    ]);
    expect(checking.passes).toHaveLength(1);
  });
});
