import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { packDirectory } from "@/lib/engine-archive/pack-directory";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { createSubmission } from "@/lib/submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "@/lib/testing/arena-test-context";
import { issueToken } from "@/lib/tokens/issue-token";
import { seedDemoBoard } from "./demo/demo-board";
import { getEvaluationPage } from "./get-evaluation";
import { listBoard } from "./list-board";
import { listLatestEvaluations } from "./list-latest";

let context: ArenaTestContext;
let demoIds: string[];
let queued: { id: string; evaluationId: string };

beforeAll(async () => {
  context = await setupArenaTestContext();
  demoIds = await seedDemoBoard(db());
  const issued = await issueToken({ accountName: "board reader" });
  const inline = (await packDirectory("lib/sim-engine/engines/stock")).toString("base64");
  const caller = { accountId: issued.accountId, kind: "participant" as const };
  const body = {
    task_id: "qwen3-8b",
    split: "dev",
    engine: { inline },
    solution: { method: "ci run", kind: "ngram" },
    profile: "ci",
  };
  const enqueue = async () => {};
  const first = await createSubmission(caller, body, { enqueue });
  queued = await createSubmission(caller, body, { enqueue });
  // The first one is scored under the ci profile: listed apart, never ranked.
  await moveEvaluation(first.evaluationId, "scored", { data: { specscore: 1.4, result: { score: 1.4 } } });
});

afterAll(async () => {
  await context?.teardown();
});

describe("the boards read from the database", () => {
  it("ranks the seeded participants and references and lists the ci run apart", async () => {
    const board = await listBoard("qwen3-8b");
    expect(board.participants.map((e) => [e.account, e.rank])).toEqual([
      ["DSpark agent (demo)", 1],
      ["FP8 draft agent (demo)", 2],
    ]);
    expect(board.participants[1]!.devGap).not.toBeNull();
    expect(board.references.map((e) => e.referenceKey)).toEqual(["eagle3-redhatai-3", "stock", "ngram-4"]);
    expect(board.profiled.map((e) => [e.account, e.profile, e.result?.score])).toEqual([["board reader", "ci", 1.4]]);
    const other = await listBoard("qwen35-27b");
    expect(other.references.at(-1)).toMatchObject({ referenceKey: "ngram-4" });
    expect(other.references.at(-1)!.result).toMatchObject({ score: 0, lossless: false });
  });

  it("lists the latest evaluations, newest first, whatever their state", async () => {
    const latest = await listLatestEvaluations(3);
    expect(latest).toHaveLength(3);
    expect(latest[0]!.evaluationId).toBe(queued.evaluationId);
    expect(latest[0]!.status).toBe("queued");
  });

  it("builds an evaluation page by evaluation id or submission id, with its passes, gates and queue position", async () => {
    const page = await getEvaluationPage(demoIds[0]!);
    expect(page.entry.result?.workloads.solo.ratio).toBeCloseTo(2.87, 6);
    expect(page.gates).toHaveLength(8);
    expect(page.passes).toHaveLength(18);
    expect(page.queuePosition).toBeNull();
    const bySubmission = await getEvaluationPage(queued.id);
    expect(bySubmission.entry.evaluationId).toBe(queued.evaluationId);
    expect(bySubmission.queuePosition).toBe(1);
    await expect(getEvaluationPage("missing")).rejects.toThrow(/not found/);
  });
});

describe("the dev/test gap on an evaluation's page", () => {
  it("flags a scored test result far below the account's dev result, and only that one", async () => {
    const board = await listBoard("qwen3-8b");
    const flagged = board.participants.find((e) => e.account === "FP8 draft agent (demo)")!;
    const page = await getEvaluationPage(flagged.evaluationId);
    expect(page.devGap?.dev).toBeCloseTo(flagged.devGap!.dev, 9);
    const fine = board.participants.find((e) => e.account === "DSpark agent (demo)")!;
    expect((await getEvaluationPage(fine.evaluationId)).devGap).toBeNull();
  });
});
