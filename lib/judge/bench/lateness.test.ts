import { describe, expect, it } from "vitest";
import { worstChunks } from "./lateness";

describe("the lateness section's latest chunks", () => {
  // chunk 0: alone and 6 ms late, 5 of it the server's; 1 and 2: a burst of two 3 ms late, inside a 2 ms GC pause
  const chunks = {
    stamps: [100, 200, 200.5, 300],
    arrivals: [106, 203, 203.5, 300.2],
    serverDelays: [5, 0.01, 0.02, Number.NaN],
  };
  const pauses = [{ kind: "minor" as const, startMs: 201, durationMs: 2 }];

  it("takes the latest apart: the server's share, the late chunks beside it, the GC pause inside its transit", () => {
    const worst = worstChunks(chunks, pauses, 3);
    expect(worst.map((w) => w.latenessMs)).toEqual([6, 3, 3]);
    expect(worst[0]).toEqual({ latenessMs: 6, serverDelayMs: 5, lateNeighbours: 0, gcMs: null });
    expect(worst[1]).toMatchObject({ lateNeighbours: 1, gcMs: 2 });
    expect(worst[2]).toMatchObject({ lateNeighbours: 1, gcMs: 2 });
  });

  it("says null where the log has no write time, and counts no chunk on time as late", () => {
    const worst = worstChunks(chunks, null, 4);
    expect(worst[3]).toEqual({
      latenessMs: expect.closeTo(0.2, 6),
      serverDelayMs: null,
      lateNeighbours: 0,
      gcMs: null,
    });
  });
});
