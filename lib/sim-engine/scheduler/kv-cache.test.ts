import { describe, expect, it } from "vitest";
import { KvCache, newBlockTable } from "./kv-cache";

const seq = (n: number, offset = 0) => Array.from({ length: n }, (_, i) => i + offset);

describe("paged KV cache with a prefix cache", () => {
  it("finds a released prefix again by block hash, never the last token", () => {
    const kv = new KvCache(100, 16, true);
    const a = newBlockTable();
    expect(kv.admit(a, seq(100), true)).toBe(0);
    expect(a.blocks.length).toBe(7);
    kv.release(a);
    const b = newBlockTable();
    expect(kv.admit(b, [...seq(100), 5, 6, 7], true)).toBe(96);
    const c = newBlockTable();
    // Exactly 6 full blocks: the last token must be computed, so only 5 blocks come from the cache.
    expect(kv.admit(c, seq(96), true)).toBe(80);
    expect(kv.hits).toBe(176);
    expect(kv.queries).toBe(100 + 103 + 96);
  });

  it("evicts the least recently freed cached blocks first and runs out when everything is held", () => {
    const kv = new KvCache(8, 16, true);
    const a = newBlockTable();
    kv.admit(a, seq(64), true);
    kv.release(a);
    const b = newBlockTable();
    expect(kv.admit(b, seq(128, 1000), true)).toBe(0);
    expect(kv.freeBlocks).toBe(0);
    expect(kv.admit(newBlockTable(), [...seq(64), 9], true)).toBe(-1);
    expect(kv.usage).toBe(1);
    const c = newBlockTable();
    expect(kv.admit(c, seq(20, 5000), true)).toBe(-1);
    kv.release(b);
    // b's tail was freed first, so it is evicted first; a's blocks were evicted already.
    expect(kv.admit(c, seq(20, 5000), true)).toBe(0);
    const d = newBlockTable();
    expect(kv.admit(d, [...seq(32, 1000), 1, 2], true)).toBe(32);
  });

  it("keeps nothing for reuse without prefix caching", () => {
    const kv = new KvCache(10, 16, false);
    const a = newBlockTable();
    kv.admit(a, seq(64), true);
    kv.release(a);
    expect(kv.admit(newBlockTable(), seq(64), true)).toBe(0);
    expect(kv.queries).toBe(0);
  });

  it("grows a table block by block and reports when it cannot", () => {
    const kv = new KvCache(3, 16, true);
    const a = newBlockTable();
    kv.admit(a, seq(10), true);
    expect(kv.ensure(a, 48)).toBe(true);
    expect(a.blocks.length).toBe(3);
    expect(kv.ensure(a, 49)).toBe(false);
  });
});
