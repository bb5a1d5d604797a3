import { describe, expect, it } from "vitest";
import { nowMs, nowNs, nsToMs } from "../clock";
import { collectGarbage, summarizeGc, watchGc } from "./gc-watch";

describe("the judge's GC pauses", () => {
  it("are recorded on the judge's clock, inside the span that caused them", async () => {
    const watch = watchGc();
    const from = nowMs();
    let keep = 0;
    for (let i = 0; i < 60; i++) {
      // short-lived garbage: young-generation collections
      const junk = Array.from({ length: 20_000 }, (_, k) => ({ k, s: `x${k}` }));
      keep += junk.length;
      if (i % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    const to = nowMs();
    const pauses = watch.stop();
    expect(keep).toBe(1_200_000);
    expect(pauses.length).toBeGreaterThan(0);
    for (const p of pauses) {
      expect(p.startMs).toBeGreaterThanOrEqual(from - 0.01);
      expect(p.startMs + p.durationMs).toBeLessThanOrEqual(to + 0.01);
      expect(["minor", "major", "incremental", "weak-callbacks", "other"]).toContain(p.kind);
    }
    expect(pauses.some((p) => p.kind === "minor")).toBe(true);
    const s = summarizeGc(pauses);
    expect(s.pauses).toBe(pauses.length);
    expect(s.totalMs).toBeCloseTo(
      pauses.reduce((a, p) => a + p.durationMs, 0),
      9,
    );
    expect(s.maxMs).toBe(Math.max(...pauses.map((p) => p.durationMs)));
  });

  it("reads the judge's clock in milliseconds as its nanosecond reading does", () => {
    for (let i = 0; i < 5; i++) {
      const a = nsToMs(nowNs());
      const t = nowMs();
      const b = nsToMs(nowNs());
      // a fraction of a microsecond of calibration either side
      expect(t).toBeGreaterThanOrEqual(a - 0.001);
      expect(t).toBeLessThanOrEqual(b + 0.001);
    }
  });

  it("collects the whole heap when asked, and the observer sees it as a major collection", async () => {
    const watch = watchGc();
    expect(collectGarbage()).toBe(true);
    // the runtime hands a GC's entry over in a later turn of the loop
    await new Promise((r) => setTimeout(r, 20));
    const pauses = watch.stop();
    expect(pauses.some((p) => p.kind === "major")).toBe(true);
  });

  it("summarizes no pauses as none", () => {
    expect(summarizeGc([])).toEqual({ pauses: 0, totalMs: 0, maxMs: null, overOneMs: 0 });
  });
});
