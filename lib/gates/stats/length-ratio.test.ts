import { describe, expect, it } from "vitest";
import { lengthPasses, lengthRatio, pairReplies } from "./length-ratio";
import { seededRandom } from "./seeded-random";

describe("pairReplies", () => {
  it("pairs by pass, session and turn and drops what only one engine answered", () => {
    const pairs = pairReplies(
      [
        { pass: 0, session: "a", turn: 0, tokens: 10 },
        { pass: 0, session: "a", turn: 1, tokens: 11 },
        { pass: 1, session: "a", turn: 0, tokens: 12 },
        { pass: 0, session: "b", turn: 0, tokens: 13 },
      ],
      [
        { pass: 0, session: "a", turn: 1, tokens: 21 },
        { pass: 0, session: "a", turn: 0, tokens: 20 },
        { pass: 1, session: "a", turn: 0, tokens: 22 },
        { pass: 2, session: "a", turn: 0, tokens: 99 },
      ],
    );
    expect(pairs).toEqual([
      { candidate: 10, stock: 20 },
      { candidate: 11, stock: 21 },
      { candidate: 12, stock: 22 },
    ]);
  });

  it("refuses a request recorded twice", () => {
    const r = { pass: 0, session: "a", turn: 0, tokens: 1 };
    expect(() => pairReplies([r, r], [])).toThrow(/candidate replies repeat/);
    expect(() => pairReplies([], [r, r])).toThrow(/stock replies repeat/);
  });
});

describe("lengthRatio", () => {
  it("computes the ratio and its delta-method interval by hand", () => {
    // R = 60/40 = 1.5; residuals −5, 5, 0 → se = √(50/6) / (40/3)
    const r = lengthRatio(
      [
        { candidate: 10, stock: 10 },
        { candidate: 20, stock: 10 },
        { candidate: 30, stock: 20 },
      ],
      1.96,
    );
    const se = Math.sqrt(50 / 6) / (40 / 3);
    expect(r.ratio).toBe(1.5);
    expect(r.low).toBeCloseTo(1.5 - 1.96 * se, 12);
    expect(r.high).toBeCloseTo(1.5 + 1.96 * se, 12);
    expect(r.replies).toBe(3);
    expect(lengthPasses(r, 0.05)).toBe(false);
  });

  it("gives no ratio, and no pass, with too few pairs", () => {
    const r = lengthRatio([{ candidate: 3, stock: 4 }], 1.96);
    expect(r).toEqual({ ratio: null, low: null, high: null, paired: true, replies: 1 });
    expect(lengthPasses(r, 0.05)).toBe(false);
  });

  it("passes the seed's pooled interval and fails replies cut to half", () => {
    expect(lengthPasses({ low: 0.9154439779742248, high: 1.0835792714794925 }, 0.05)).toBe(true);
    const rand = seededRandom(3);
    const stock = Array.from({ length: 800 }, () => 20 + Math.floor(rand() * 600));
    const cut = lengthRatio(
      stock.map((s) => ({ candidate: Math.min(s, 150), stock: s })),
      1.96,
    );
    expect(lengthPasses(cut, 0.05)).toBe(false);
  });

  it("covers a true ratio of 1 about 95% of the time on heavy-tailed lengths", () => {
    const rand = seededRandom(11);
    const heavy = () => Math.floor(30 / Math.max(rand(), 0.02) ** 0.7);
    let covered = 0;
    const runs = 500;
    for (let run = 0; run < runs; run++) {
      const pairs = Array.from({ length: 400 }, () => ({ candidate: heavy(), stock: heavy() }));
      const r = lengthRatio(pairs, 1.96);
      if (r.low! <= 1 && 1 <= r.high!) covered++;
    }
    expect(covered / runs).toBeGreaterThan(0.91);
    expect(covered / runs).toBeLessThan(0.99);
  });
});
