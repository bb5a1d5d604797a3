import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listBoard } from "@/lib/board/list-board";
import { db } from "@/lib/db/client";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { type ArenaTestContext, setupArenaTestContext } from "@/lib/testing/arena-test-context";
import { measureReferences, referencePlan } from "./measure-references";

let context: ArenaTestContext;
const enqueued: string[] = [];
const enqueue = async (id: string) => {
  enqueued.push(id);
};

beforeAll(async () => {
  context = await setupArenaTestContext();
});

afterAll(async () => {
  await context?.teardown();
});

describe("referencePlan", () => {
  it("takes the tasks in turn, each task's A/A run first", () => {
    const { runnable, skipped } = referencePlan("sim");
    expect(skipped).toEqual([]);
    expect(runnable.slice(0, 4).map((r) => `${r.taskId} ${r.referenceKey}`)).toEqual([
      "qwen3-8b stock",
      "qwen35-27b stock",
      "qwen3-8b ngram-4",
      "qwen35-27b ngram-4",
    ]);
    expect(runnable).toHaveLength(9);
  });

  it("names each reference no engine plays on the runtime, and why", () => {
    const { runnable, skipped } = referencePlan("vllm");
    expect(runnable.length + skipped.length).toBe(9);
    for (const s of skipped) expect(s.why).not.toBe("");
  });
});

describe("measureReferences", () => {
  it("queues every reference of each task under the profile, and the boards show each once scored, labelled", async () => {
    const measured = await measureReferences({ profile: "ci", split: "test" }, { runtime: "sim", enqueue });
    expect(measured.queued).toHaveLength(9);
    expect(enqueued).toEqual(measured.queued.map((r) => r.evaluationId));
    const rows = await db().evaluation.findMany({
      where: { id: { in: enqueued } },
      include: { submission: { include: { account: true } } },
    });
    for (const row of rows) {
      expect([row.status, row.submission.profile, row.submission.split, row.submission.account.name]).toEqual([
        "queued",
        "ci",
        "test",
        "reference",
      ]);
    }

    // the A/A run of qwen35-27b is scored: its board shows it among the references, under its profile
    const aa = measured.queued.find((r) => r.taskId === "qwen35-27b" && r.referenceKey === "stock")!;
    await moveEvaluation(aa.evaluationId, "scored", { data: { specscore: 1.002, result: { score: 1.002 } } });
    const board = await listBoard("qwen35-27b");
    expect(board.references.map((e) => [e.referenceKey, e.profile, e.result?.score])).toEqual([["stock", "ci", 1.002]]);
    expect((await listBoard("qwen3-8b")).references).toEqual([]);

    // measured again under the full protocol, the full run replaces the labelled one
    const full = await measureReferences({ profile: "full" }, { runtime: "sim", enqueue });
    const fullAa = full.queued.find((r) => r.taskId === "qwen35-27b" && r.referenceKey === "stock")!;
    await moveEvaluation(fullAa.evaluationId, "scored", { data: { specscore: 0.998, result: { score: 0.998 } } });
    const after = await listBoard("qwen35-27b");
    expect(after.references.map((e) => [e.referenceKey, e.profile])).toEqual([["stock", "full"]]);
  });

  it("refuses a profile the protocol does not have, naming the field", async () => {
    await expect(measureReferences({ profile: "turbo" }, { runtime: "sim", enqueue })).rejects.toThrow(/profile/);
  });
});
