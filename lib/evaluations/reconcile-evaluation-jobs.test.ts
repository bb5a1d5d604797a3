import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { evaluationsQueue } from "../queue/evaluations-queue";
import { createSubmission } from "../submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { issueToken } from "../tokens/issue-token";
import { moveEvaluation } from "./move-evaluation";
import { reconcileEvaluationJobs } from "./reconcile-evaluation-jobs";

let ctx: ArenaTestContext;
let accountId: string;
const inline = gzipSync(
  writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\n"), mode: 0o755 }]),
).toString("base64");

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  ({ accountId } = await issueToken({ accountName: "reconcile" }));
});

afterAll(async () => {
  await evaluationsQueue().obliterate({ force: true });
  await ctx.teardown();
});

async function submit(enqueue: boolean): Promise<string> {
  const created = await createSubmission(
    { accountId, kind: "participant" },
    { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { kind: "other" } },
    enqueue ? {} : { enqueue: async () => undefined },
  );
  return created.evaluationId;
}

/** The waiting jobs in the order a worker takes them. */
const waitingOrder = async () => (await evaluationsQueue().getJobs(["waiting"], 0, -1, true)).map((j) => j.id);

describe("reconcileEvaluationJobs", () => {
  it("queues the evaluations that lost their jobs oldest first, ahead of newer ones that kept theirs", async () => {
    // a, b and d lost their jobs (Redis restarted empty); c and e were queued after
    const a = await submit(false);
    const b = await submit(false);
    const c = await submit(true);
    const d = await submit(false);
    const e = await submit(true);
    expect(await waitingOrder()).toEqual([c, e]);

    const report = await reconcileEvaluationJobs();
    expect(report).toEqual({ queued: [a, b, d], requeued: [c, e], removed: [], skipped: false });
    expect(await waitingOrder()).toEqual([a, b, c, d, e]);

    // run again: nothing to do, nothing moved
    expect(await reconcileEvaluationJobs()).toEqual({ queued: [], requeued: [], removed: [], skipped: false });
    expect(await waitingOrder()).toEqual([a, b, c, d, e]);
  });

  it("removes waiting jobs of evaluations that are over or missing, and queues one whose worker's lease lapsed", async () => {
    const before = await waitingOrder();
    const cancelled = before[0]!;
    await moveEvaluation(cancelled, "cancelled", { reason: "test" });
    await evaluationsQueue().add("evaluate", { evaluationId: "no-such-evaluation" }, { jobId: "no-such-evaluation" });
    // a running evaluation whose worker died with Redis's data: its lease lapsed and its job is gone
    const lapsed = before[1]!;
    await evaluationsQueue().remove(lapsed);
    await db().evaluation.update({
      where: { id: lapsed },
      data: { status: "running", attempt: 1, leaseOwner: "gone:1", leaseExpiresAt: new Date(Date.now() - 1000) },
    });

    const report = await reconcileEvaluationJobs(undefined, { wait: true });
    expect(report.removed.sort()).toEqual([cancelled, "no-such-evaluation"].sort());
    expect(report.queued).toEqual([lapsed]);
    expect(await waitingOrder()).toEqual(before.slice(1));
  });

  it("skips when another process is reconciling, unless told to wait", async () => {
    const held = db().$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('arena:reconcile-evaluation-jobs', 0))`;
      await new Promise((r) => setTimeout(r, 500));
    });
    await new Promise((r) => setTimeout(r, 100));
    expect((await reconcileEvaluationJobs()).skipped).toBe(true);
    const waited = await reconcileEvaluationJobs(undefined, { wait: true });
    expect(waited.skipped).toBe(false);
    await held;
  });
});
