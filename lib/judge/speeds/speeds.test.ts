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

  it("team/busy: tokens that arrive while every lane is busy, over that time", () => {
    // lane 1: [0, 1000]; lane 2: [200, 700] then [800, 1500]: all busy in [200,700] and [800,1000]
    const l1 = rec({ sent: 0, done: 1000, chunks: [100, 300, 900, 1000], tokens: [1, 1, 1, 1] });
    const l2a = rec({ sent: 200, done: 700, chunks: [400, 650], tokens: [2, 2] });
    const l2b = rec({ sent: 800, done: 1500, chunks: [850, 1200], tokens: [5, 5] });
    expect(allBusyIntervals([l1, l2a, l2b], 2)).toEqual([
      [200, 700],
      [800, 1000],
    ]);
    const r = allLanesBusySpeed([l1, l2a, l2b], 2);
    // in busy time: l1's 300, 900, 1000 (3), l2a's 400, 650 (4), l2b's 850 (5) = 12 tokens over 0.7 s
    expect(r.tokens).toBe(12);
    expect(r.busyMs).toBe(700);
    expect(r.speed).toBeCloseTo(12 / 0.7, 10);
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
