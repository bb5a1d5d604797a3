import { describe, expect, it } from "vitest";
import { getProfile, getTask, WORKLOAD_IDS } from "@/lib/protocol";
import { fixturePool } from "../testing/fixture-pool";
import { planEvaluation, requestSeed, saltedSystemPrompt } from "./plan";

const pool = fixturePool({ perFamily: 200 });
const task = getTask("qwen3-8b");
const profile = getProfile("full")!;

describe("planEvaluation", () => {
  it("is a pure function of the pool, seed, task and profile", () => {
    const a = planEvaluation(pool, { seed: "s1", task, profile });
    const b = planEvaluation(pool, { seed: "s1", task, profile });
    const ids = (p: typeof a) =>
      WORKLOAD_IDS.map((w) => p.workloads[w].passes.map((x) => x.queues.map((q) => q.map((s) => s.id))));
    expect(ids(a)).toEqual(ids(b));
    expect(ids(planEvaluation(pool, { seed: "s2", task, profile }))).not.toEqual(ids(a));
  });

  it("deals no session twice: passes are fresh and warm-ups use sessions no pass sends", () => {
    const plan = planEvaluation(pool, { seed: "x", task, profile });
    const seen = new Set<string>();
    let dealt = 0;
    for (const w of WORKLOAD_IDS) {
      const { warmup, passes } = plan.workloads[w];
      expect(warmup.queues).toHaveLength(task.lanes[w]);
      expect(passes).toHaveLength(3);
      for (const p of [warmup, ...passes]) {
        for (const q of p.queues) {
          for (const s of q) {
            expect(seen.has(s.id), s.id).toBe(false);
            seen.add(s.id);
            dealt++;
          }
        }
      }
      for (const p of passes) for (const q of p.queues) expect(q.length).toBeGreaterThanOrEqual(p.interleave);
    }
    expect(dealt).toBeLessThanOrEqual(pool.sessions.length);
  });

  it("salts each pass differently, and the salt leads the system prompt", () => {
    const plan = planEvaluation(pool, { seed: "x", task, profile });
    const salts = WORKLOAD_IDS.flatMap((w) => [
      plan.workloads[w].warmup.salt,
      ...plan.workloads[w].passes.map((p) => p.salt),
    ]);
    expect(new Set(salts).size).toBe(salts.length);
    expect(saltedSystemPrompt("Be brief.", "abc")).toBe("[session abc]\nBe brief.");
  });

  it("mixes families in a lane's slots and says when the pool is too small", () => {
    const plan = planEvaluation(pool, { seed: "x", task, profile });
    const fams = plan.workloads.busy.passes[0]!.queues.flat().map((s) => s.family);
    expect(fams.filter((f) => f === "agent").length).toBeGreaterThan(fams.length * 0.3);
    expect(fams.filter((f) => f === "chat").length).toBeGreaterThan(fams.length * 0.3);
    expect(() => planEvaluation(fixturePool({ perFamily: 20 }), { seed: "x", task, profile })).toThrow(/cannot fill/);
  });

  it("gives each (session, turn) its own seed, the same on every engine", () => {
    expect(requestSeed("e", "a", 0)).toBe(requestSeed("e", "a", 0));
    expect(requestSeed("e", "a", 0)).not.toBe(requestSeed("e", "a", 1));
    expect(requestSeed("e", "a", 0)).not.toBe(requestSeed("f", "a", 0));
  });
});

describe("family mix under scarcity", () => {
  it("gives every pass's live sessions the mix even when one family cannot fill every queue", () => {
    const scarce = fixturePool({ perFamily: 400 });
    const few = {
      ...scarce,
      sessions: scarce.sessions.filter((s) => s.family === "chat" || Number(s.id.split("-")[1]) < 120),
    };
    const plan = planEvaluation(few, { seed: "mix", task, profile });
    for (const w of WORKLOAD_IDS) {
      for (const p of plan.workloads[w].passes) {
        const live = p.queues.flatMap((q) => q.slice(0, p.interleave));
        const agents = live.filter((s) => s.family === "agent").length;
        if (live.length >= 8) expect(agents, `${w} pass ${p.pass}`).toBeGreaterThan(live.length * 0.25);
      }
    }
  });
});
