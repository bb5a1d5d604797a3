import { describe, expect, it } from "vitest";
import { runCheck, unansweredNote } from "./check-run";

describe("runCheck", () => {
  it("keeps each answer in its place, marks a throw unanswered with why, and never exceeds its concurrency", async () => {
    let running = 0;
    let most = 0;
    const run = await runCheck([1, 2, 3, 4, 5, 6], 2, async (x) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (x % 3 === 0) throw new Error(`engine answered 400: item ${x}`);
      return x * 10;
    });
    expect(run.values).toEqual([10, 20, null, 40, 50, null]);
    expect(run.unanswered).toBe(2);
    expect(run.errors).toEqual([
      { index: 2, message: "engine answered 400: item 3" },
      { index: 5, message: "engine answered 400: item 6" },
    ]);
    expect(most).toBe(2);
  });

  it("tells its listener how many requests have settled, answered or not, after each one", async () => {
    const heard: [number, number][] = [];
    await runCheck(
      [1, 2, 3],
      2,
      async (x) => {
        if (x === 2) throw new Error("refused");
        return x;
      },
      (settled, total) => heard.push([settled, total]),
    );
    expect(heard).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });
});

describe("unansweredNote", () => {
  it("says nothing when every request was answered", () => {
    expect(unansweredNote("the candidate", "fixed texts", { values: [1, 2], unanswered: 0, errors: [] })).toBeNull();
  });

  it("counts what went unanswered and shows the first errors, numbered from 1", () => {
    const errors = [0, 3, 4, 7].map((index) => ({ index, message: `engine answered 400: too long ${index}` }));
    const note = unansweredNote(
      "the candidate",
      "fixed texts",
      { values: new Array(8).fill(null), unanswered: 4, errors },
      2,
    );
    expect(note).toBe(
      "the candidate left 4 of 8 fixed texts unanswered (#1: engine answered 400: too long 0; #4: engine answered 400: too long 3; 2 more)",
    );
  });

  it("cuts a long error", () => {
    const note = unansweredNote("the stock engine", "greedy probes", {
      values: [null],
      unanswered: 1,
      errors: [{ index: 0, message: "x".repeat(500) }],
    });
    expect(note).toBe(`the stock engine left 1 of 1 greedy probes unanswered (#1: ${"x".repeat(200)}…)`);
  });
});
