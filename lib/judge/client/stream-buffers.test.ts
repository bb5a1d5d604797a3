import { describe, expect, it } from "vitest";
import { StreamBuffers } from "./stream-buffers";

describe("a lane's chunk buffers", () => {
  it("keeps every event's arrival and end past its first capacity, and copies each reply out on its own", () => {
    const b = new StreamBuffers(2);
    for (let i = 0; i < 9; i++) b.push(1000.25 + i / 3, 4 * (i + 1));
    expect(b.size).toBe(9);
    const times = b.times();
    const ends = b.ends();
    expect(times).toEqual(Array.from({ length: 9 }, (_, i) => 1000.25 + i / 3));
    expect(ends).toEqual([4, 8, 12, 16, 20, 24, 28, 32, 36]);
    expect(Array.isArray(times)).toBe(true);
    // the next reply reuses the storage; what was copied out stays as it was
    b.reset();
    b.push(7, 1);
    expect(b.times()).toEqual([7]);
    expect(b.ends()).toEqual([1]);
    expect(times[0]).toBe(1000.25);
    expect(ends).toHaveLength(9);
  });

  it("gives empty arrays for a reply without content", () => {
    const b = new StreamBuffers();
    expect(b.times()).toEqual([]);
    expect(b.ends()).toEqual([]);
  });
});
