import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { pageVersion } from "@/lib/page-cache/page-version";
import { TASK_IDS } from "@/lib/protocol";
import { type ArenaTestContext, setupArenaTestContext } from "@/lib/testing/arena-test-context";
import { seedScale } from "./bench/scale-fixture";
import { activityVersion, boardVersion } from "./board-version";
import { activeEvaluations, profileDurations, recentEvaluations } from "./cached-reads";
import { countActiveEvaluations } from "./count-active";
import { assembleBoard, listBoard } from "./list-board";
import { listRecentEvaluations } from "./list-recent";
import { type EntryRow, entryInclude, toEntry } from "./to-entry";

let context: ArenaTestContext;

beforeAll(async () => {
  context = await setupArenaTestContext();
  await seedScale(db(), { accounts: 60, evaluations: 400, seed: 7 });
}, 120_000);

afterAll(async () => {
  await context?.teardown();
});

/** The board as it was read before: every scored row of the task with its record, through the same rules. */
async function everyRowBoard(taskId: (typeof TASK_IDS)[number]) {
  const rows = (await db().evaluation.findMany({
    where: { status: "scored", submission: { taskId } },
    include: entryInclude,
    orderBy: { finishedAt: "desc" },
  })) as EntryRow[];
  return assembleBoard(taskId, rows.map(toEntry));
}

/** A new test-split, full-protocol evaluation of a participant that has none on the task yet, running. */
async function runningEvaluation(taskId: (typeof TASK_IDS)[number], name = `newcomer ${taskId}`) {
  const account = await db().account.create({ data: { name, kind: "participant" } });
  const submission = await db().submission.create({
    data: {
      accountId: account.id,
      taskId,
      split: "test",
      protocolVersion: "1",
      engineSource: "repository",
      engineUri: "org/engine",
      engineRevision: "a".repeat(40),
      method: "a newcomer's method",
      kind: "eagle3",
    },
  });
  const evaluation = await db().evaluation.create({
    data: { submissionId: submission.id, status: "running", attempt: 1, seed: 1, startedAt: new Date() },
  });
  return { id: evaluation.id, account: account.name };
}

describe("the boards at scale", () => {
  it("are what the rules make of every scored row with its record, read from far fewer", async () => {
    const zeroed = [];
    for (const taskId of TASK_IDS) {
      const board = await listBoard(taskId);
      expect(board.participants.length).toBeGreaterThan(5);
      expect(board.references.length).toBeGreaterThan(1);
      expect(board.profiled.length).toBeGreaterThan(3);
      zeroed.push(...board.participants.filter((e) => e.result?.score === 0));
      expect(board).toEqual(await everyRowBoard(taskId));
    }
    // failed gates rank among them, with their reason
    expect(zeroed.length).toBeGreaterThan(0);
    expect(zeroed.every((e) => e.result?.reason)).toBe(true);
  });

  it("are read once per new score: the same board until an evaluation is scored, then the new one", async () => {
    const first = await listBoard("qwen3-8b");
    expect(await listBoard("qwen3-8b")).toBe(first);
    const before = await boardVersion(db());
    // a participant's evaluation on the test split under the full protocol, running, then scored above everyone
    const running = await runningEvaluation("qwen3-8b");
    const top = Math.max(...first.participants.map((e) => e.result?.score ?? 0)) + 1;
    expect(
      await moveEvaluation(running.id, "scored", { attempt: 1, data: { specscore: top, result: { score: top } } }),
    ).toBe(true);
    expect(await boardVersion(db())).not.toBe(before);
    const after = await listBoard("qwen3-8b");
    expect(after).not.toBe(first);
    expect(after.participants[0]).toMatchObject({ evaluationId: running.id, rank: 1, account: running.account });
    expect(after).toEqual(await everyRowBoard("qwen3-8b"));
    // a state that is not a score changes nothing the boards show
    const queued = await db().evaluation.findFirst({ where: { status: "queued" } });
    await moveEvaluation(queued!.id, "cancelled", { reason: "withdrawn" });
    expect(await listBoard("qwen3-8b")).toBe(after);
  });

  it("shares one read among readers who ask at once", async () => {
    const running = await runningEvaluation("qwen35-27b");
    await moveEvaluation(running.id, "scored", { attempt: 1, data: { specscore: 0.5, result: { score: 0.5 } } });
    const boards = await Promise.all(Array.from({ length: 20 }, () => listBoard("qwen35-27b")));
    expect(new Set(boards).size).toBe(1);
  });

  it("keep the newest evaluations and the active count until any evaluation is queued or moves", async () => {
    const recent = () => recentEvaluations({ limit: 8, profiles: "full" });
    const first = await recent();
    const active = await activeEvaluations();
    const durations = await profileDurations();
    expect(await recent()).toBe(first);
    expect(await profileDurations()).toBe(durations);
    const before = await activityVersion(db());

    // a new evaluation, running: the newest of all, one more active
    const running = await runningEvaluation("qwen3-8b", "late newcomer");
    expect(await activityVersion(db())).not.toBe(before);
    const second = await recent();
    expect(second[0]).toMatchObject({ evaluationId: running.id, change: "started" });
    expect(second).toEqual(await listRecentEvaluations({ limit: 8, profiles: "full" }));
    expect(await activeEvaluations()).toBe(active + 1);
    // not a score: the durations stand
    expect(await profileDurations()).toBe(durations);

    // it finishes (not scored): the lists move again
    await moveEvaluation(running.id, "failed", { attempt: 1, reason: "engine exited" });
    const third = await recent();
    expect(third[0]).toMatchObject({ evaluationId: running.id, change: "finished" });
    expect(await activeEvaluations()).toBe(await countActiveEvaluations());
    expect(await activeEvaluations()).toBe(active);
  });

  it("keep a final evaluation's page through the queue's moves; a test result's moves with a new score", async () => {
    const dev = await runningEvaluation("qwen3-8b", "page version dev");
    await db().submission.updateMany({ where: { evaluations: { some: { id: dev.id } } }, data: { split: "dev" } });
    const test = await runningEvaluation("qwen3-8b", "page version test");
    const page = (id: string) => pageVersion({ kind: "evaluation", id });
    // running: rendered for each reader
    expect(await page(dev.id)).toBeNull();
    await moveEvaluation(dev.id, "failed", { attempt: 1, reason: "engine exited" });
    await moveEvaluation(test.id, "failed", { attempt: 1, reason: "engine exited" });
    const [devKept, testKept] = [await page(dev.id), await page(test.id)];
    expect(devKept).not.toBeNull();

    // the queue moves: neither page changes
    const other = await runningEvaluation("qwen35-27b", "page version other");
    expect(await page(dev.id)).toBe(devKept);
    expect(await page(test.id)).toBe(testKept);
    // a new score: the test result's dev/test gap may move with it, the dev result's page may not
    await moveEvaluation(other.id, "scored", { attempt: 1, data: { specscore: 1.1, result: { score: 1.1 } } });
    expect(await page(dev.id)).toBe(devKept);
    expect(await page(test.id)).not.toBe(testKept);
    // its own row moves (refunded, say): its page changes
    await db().evaluation.update({ where: { id: dev.id }, data: { refunded: true } });
    expect(await page(dev.id)).not.toBe(devKept);
  });
});
