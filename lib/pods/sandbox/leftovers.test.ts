import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearLeftovers } from "./leftovers";

describe("what an engine left in scratch folders", () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = await mkdtemp(join(tmpdir(), "leftovers-a-"));
    b = await mkdtemp(join(tmpdir(), "leftovers-b-"));
  });
  afterAll(async () => {
    await rm(a, { recursive: true, force: true });
    await rm(b, { recursive: true, force: true });
  });

  it("goes, folders and hidden entries included, where its owner is the one asked for; the rest stays", async () => {
    await writeFile(join(a, "arena-probe-leftover"), "x");
    await mkdir(join(a, ".hidden-dir", "deeper"), { recursive: true });
    await writeFile(join(b, "shm-segment"), "x");
    const me = process.getuid?.() ?? 0;
    expect(await clearLeftovers([a, b, join(a, "no-such-folder")], (owner) => owner === me)).toBe(3);
    expect(await readdir(a)).toEqual([]);
    expect(await readdir(b)).toEqual([]);
    await writeFile(join(a, "the agent's own"), "x");
    expect(await clearLeftovers([a], (owner) => owner !== me)).toBe(0);
    expect(await readdir(a)).toEqual(["the agent's own"]);
  });
});
