import { describe, expect, it } from "vitest";
import { drawAcrossGroups } from "./draw-replies";

describe("drawAcrossGroups", () => {
  const groups = {
    solo: Array.from({ length: 100 }, (_, i) => `s${i}`),
    team: Array.from({ length: 300 }, (_, i) => `t${i}`),
    busy: Array.from({ length: 600 }, (_, i) => `b${i}`),
  };

  it("draws from every group in proportion to its size, without repeats", () => {
    const d = drawAcrossGroups(groups, 512, 1);
    expect(d).toHaveLength(512);
    expect(new Set(d).size).toBe(512);
    const share = (p: string) => d.filter((x) => x.startsWith(p)).length;
    // quotas 51.2, 153.6, 307.2: the largest remainder takes the last one
    expect([share("s"), share("t"), share("b")]).toEqual([51, 154, 307]);
  });

  it("repeats with its seed and differs across seeds", () => {
    expect(drawAcrossGroups(groups, 64, 7)).toEqual(drawAcrossGroups(groups, 64, 7));
    expect(drawAcrossGroups(groups, 64, 7)).not.toEqual(drawAcrossGroups(groups, 64, 8));
  });

  it("takes everything when there are fewer items than asked", () => {
    expect(drawAcrossGroups({ a: [1, 2], b: [3] }, 10, 1).sort()).toEqual([1, 2, 3]);
    expect(() => drawAcrossGroups(groups, -1, 1)).toThrow(/cannot draw/);
  });
});
