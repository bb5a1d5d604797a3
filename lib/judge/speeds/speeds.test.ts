import { describe, expect, it } from "vitest";
import { allBusyIntervals, allLanesBusySpeed, cacheHit, itlPerToken, requestTimeSpeed, tpotMs, ttftMs } from "./speeds";

const rec = (o: { sent: number; done: number; chunks: number[]; tokens: number[]; counted?: boolean }) => ({
  sentMs: o.sent,
  doneMs: o.done,
  chunkMs: o.chunks,
  chunkTokens: o.tokens,
  firstTokenMs: o.chunks[0] ?? null,
  lastTokenMs: o.chunks[o.chunks.length - 1] ?? null,
  outputTokens: o.tokens.reduce((a, b) => a + b, 0),
  counted: o.counted ?? true,
});

describe("speeds by the protocol's definitions", () => {
  it("solo: counted tokens over request time, sent to last token; failures cost time", () => {
    const a = rec({ sent: 0, done: 1100, chunks: [100, 600, 1000], tokens: [1, 2, 2] }); // 5 tokens, 1.0 s
    const b = rec({ sent: 2000, done: 3000, chunks: [2500], tokens: [3] }); // 3 tokens, 0.5 s
    expect(requestTimeSpeed([a, b])).toBeCloseTo(8 / 1.5, 10);
    const failed = rec({ sent: 4000, done: 4500, chunks: [4100], tokens: [9], counted: false }); // 0 tokens, 0.5 s
    expect(requestTimeSpeed([a, b, failed])).toBeCloseTo(8 / 2.0, 10);
  });

  it("team/busy: tokens made while every lane is busy, over that time", () => {
    // lane 1: [0, 1000]; lane 2: [200, 700] then [800, 1500]: all busy in [200,700] and [800,1000]
    const l1 = rec({ sent: 0, done: 1000, chunks: [100, 300, 900, 1000], tokens: [1, 1, 1, 1] });
    const l2a = rec({ sent: 200, done: 700, chunks: [400, 650], tokens: [2, 2] });
    const l2b = rec({ sent: 800, done: 1500, chunks: [850, 1200], tokens: [5, 5] });
    expect(allBusyIntervals([l1, l2a, l2b], 2)).toEqual([
      [200, 700],
      [800, 1000],
    ]);
    const r = allLanesBusySpeed([l1, l2a, l2b], 2);
    // each chunk's tokens over the time since its lane's previous chunk (or the send), by the share of it inside:
    // l1: [0,100] 0, [100,300] 1/2, [300,900] (400 + 100)/600, [900,1000] 1 → 7/3
    // l2a: [200,400] and [400,650] inside → 4; l2b: [800,850] inside → 5, [850,1200] 150/350 → 5 × 3/7
    const tokens = 0.5 + 5 / 6 + 1 + 4 + 5 + 15 / 7;
    expect(r.tokens).toBeCloseTo(tokens, 10);
    expect(r.busyMs).toBe(700);
    expect(r.speed).toBeCloseTo(tokens / 0.7, 10);
  });

  it("team/busy: a chunk arriving just after an interval's end counts as much as one just before it", () => {
    // lane 2 ends at 1000, and lane 1's chunk of the same engine step lands 1 µs before or after it
    const at = (t: number) => [
      rec({ sent: 0, done: 2000, chunks: [500, 990, t, 1990], tokens: [1, 1, 1, 1] }),
      rec({ sent: 0, done: 1000, chunks: [600, 1000], tokens: [1, 1] }),
    ];
    const before = allLanesBusySpeed(at(999.999), 2).tokens;
    const after = allLanesBusySpeed(at(1000.001), 2).tokens;
    // counted whole where it arrived, the two would differ by the chunk's token
    expect(Math.abs(before - after)).toBeLessThan(0.001);
    // the chunk made over [990, 1000.001] counts 10/10.001 of its token; the others inside count whole
    expect(after).toBeCloseTo(1 + 1 + 10 / 10.001 + 2, 6);
  });

  it("team/busy: chunks coalesced into one arrival count whole inside an interval, not at all outside", () => {
    const l1 = rec({ sent: 0, done: 100, chunks: [50, 50, 100], tokens: [2, 3, 1] });
    const l2 = rec({ sent: 40, done: 60, chunks: [60], tokens: [1] });
    // all busy in [40, 60]: l1's [0,50] counts 2 × 10/50, the coalesced 3 at 50 whole, [50,100] 1 × 10/50; l2's 1
    expect(allLanesBusySpeed([l1, l2], 2).tokens).toBeCloseTo(0.4 + 3 + 0.2 + 1, 10);
    const late = rec({ sent: 0, done: 200, chunks: [150, 150], tokens: [4, 4] });
    // the coalesced 4 at 150 lies outside every interval
    expect(allLanesBusySpeed([late, l2], 2).tokens).toBeCloseTo(4 * (20 / 150) + 1, 10);
  });

  it("team/busy: a chunk with no whole token passes its time on to the next, as ITL does", () => {
    // a role chunk at 45 carries no token: the token at 100 was made since the send at 0, and 20 of those 100 ms lie
    // in the all-busy interval [40, 60]
    const l1 = rec({ sent: 0, done: 100, chunks: [45, 100], tokens: [0, 1] });
    const l2 = rec({ sent: 40, done: 60, chunks: [60], tokens: [1] });
    expect(allLanesBusySpeed([l1, l2], 2).tokens).toBeCloseTo(20 / 100 + 1, 10);
  });

  it("no all-busy time gives no speed", () => {
    const only = rec({ sent: 0, done: 100, chunks: [50], tokens: [1] });
    expect(allLanesBusySpeed([only], 2).speed).toBeNull();
  });

  it("TTFT, vLLM's TPOT and per-token ITL", () => {
    const r = rec({ sent: 10, done: 500, chunks: [60, 80, 80, 140], tokens: [1, 2, 0, 3] });
    expect(ttftMs(r)).toBe(50);
    // (E2E − TTFT)/(n − 1) = (130 − 50)/(6 − 1)
    expect(tpotMs(r)).toBeCloseTo(16, 10);
    // gaps 20 (2 tokens), 0 (no token, passed on), 60 (3 tokens)
    expect(itlPerToken(r)).toEqual([10, 10, 20, 20, 20]);
    expect(tpotMs(rec({ sent: 0, done: 10, chunks: [5], tokens: [1] }))).toBeNull();
  });

  it("cache hit, token-weighted and per request", () => {
    const u = (p: number, c: number) => ({ usage: { promptTokens: p, cachedTokens: c, completionTokens: 1 } });
    const hit = cacheHit([
      u(100, 50),
      u(300, 0),
      { usage: { promptTokens: null, cachedTokens: null, completionTokens: null } },
    ]);
    expect(hit.tokenWeighted).toBeCloseTo(50 / 400, 10);
    expect(hit.perRequest).toBeCloseTo(0.25, 10);
  });
});
