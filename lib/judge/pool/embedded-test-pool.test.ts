import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { poolPathFor } from "@/lib/evaluations/runtime";
import { getProfile, getTask, TASK_IDS } from "@/lib/protocol";
import { planEvaluation } from "../sessions/plan";
import {
  EMBEDDED_TEST_KEY,
  EMBEDDED_TEST_LABEL,
  EMBEDDED_TEST_POOL_FILE,
  EMBEDDED_TEST_SHARE,
  makeEmbeddedTestPool,
} from "./embedded-test-pool";
import { loadPool } from "./load";
import { DEV_POOL_PATH } from "./paths";

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "embedded-test-pool-"));
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvForTests();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the embedded default's test pool on a fresh clone", () => {
  it("holds out a keyed quarter of the shipped dev pool, labelled as such, counted by the dev pool's tokenizer", () => {
    const dev = loadPool(DEV_POOL_PATH);
    const path = join(base, "a.jsonl");
    makeEmbeddedTestPool(path);
    const pool = loadPool(path);
    const share = pool.sessions.length / dev.sessions.length;
    expect(share).toBeGreaterThan(EMBEDDED_TEST_SHARE - 0.05);
    expect(share).toBeLessThan(EMBEDDED_TEST_SHARE + 0.05);
    const devIds = new Set(dev.sessions.map((s) => s.id));
    expect(pool.sessions.every((s) => devIds.has(s.id))).toBe(true);
    expect(new Set(pool.sessions.map((s) => s.family))).toEqual(new Set(["agent", "chat"]));
    expect(pool.countedBy).toEqual(dev.countedBy);
    expect([...pool.apps.keys()].sort()).toEqual([...new Set(pool.sessions.map((s) => s.app))].sort());
    const meta = JSON.parse(readFileSync(path, "utf8").split("\n")[0]!);
    expect(meta.heldOut).toEqual({
      label: EMBEDDED_TEST_LABEL,
      from: "lib/judge/pool/data/dev.jsonl",
      key: EMBEDDED_TEST_KEY,
      share: EMBEDDED_TEST_SHARE,
    });
    // the key decides, the same on every machine; another key holds out other sessions
    const again = makeEmbeddedTestPool(join(base, "b.jsonl"));
    expect(again.sessions.map((s) => s.id)).toEqual(pool.sessions.map((s) => s.id));
    const other = makeEmbeddedTestPool(join(base, "c.jsonl"), DEV_POOL_PATH, "another key");
    expect(other.sessions.map((s) => s.id)).not.toEqual(pool.sessions.map((s) => s.id));
  });

  it("holds enough sessions for a full test evaluation of every task", () => {
    const pool = makeEmbeddedTestPool(join(base, "d.jsonl"));
    for (const task of TASK_IDS) {
      const plan = planEvaluation(pool, { seed: "s", task: getTask(task), profile: getProfile("full")! });
      for (const w of Object.values(plan.workloads)) {
        for (const pass of w.passes) expect(pass.queues.every((q) => q.length >= pass.interleave)).toBe(true);
      }
    }
  });

  it("is what a test evaluation plays when neither TEST_POOL_PATH nor the public data exists", async () => {
    vi.stubEnv("DATABASE_URL", "postgresql://unused@127.0.0.1:1/unused");
    vi.stubEnv("ARENA_DATA_DIR", join(base, "data"));
    vi.stubEnv("PUBLIC_DATA_DIR", join(base, "no-public-data"));
    vi.stubEnv("TEST_POOL_PATH", "");
    resetEnvForTests();
    const path = await poolPathFor("test");
    expect(path).toBe(join(base, "data", "pools", EMBEDDED_TEST_POOL_FILE));
    expect(loadPool(path!).sessions.length).toBeGreaterThan(100);
    expect(await poolPathFor("test")).toBe(path);
    expect(await poolPathFor("dev")).toBeUndefined();
  });
});
