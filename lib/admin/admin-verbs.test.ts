import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usedBudget } from "@/lib/budgets/remaining-budget";
import { db } from "@/lib/db/client";
import { packDirectory } from "@/lib/engine-archive/pack-directory";
import { readTar } from "@/lib/engine-archive/read-tar";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { createSubmission } from "@/lib/submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "@/lib/testing/arena-test-context";
import { issueToken } from "@/lib/tokens/issue-token";
import { listQueue } from "./list-queue";
import { runAA, runReference } from "./run-reference";
import { voidEvaluation } from "./void-evaluation";

let context: ArenaTestContext;
let enginesDir: string;
let emptyRoot: string;
let inline: string;
const enqueued: string[] = [];
const enqueue = async (id: string) => {
  enqueued.push(id);
};

beforeAll(async () => {
  context = await setupArenaTestContext();
  enginesDir = await mkdtemp(path.join(tmpdir(), "arena-engines-"));
  await mkdir(path.join(enginesDir, "stock"));
  await writeFile(path.join(enginesDir, "stock", "launch.sh"), "#!/bin/sh\necho stock\n", { mode: 0o755 });
  inline = (await packDirectory(path.join(enginesDir, "stock"))).toString("base64");
  emptyRoot = await mkdtemp(path.join(tmpdir(), "arena-no-engines-"));
});

afterAll(async () => {
  await rm(enginesDir, { recursive: true, force: true });
  await rm(emptyRoot, { recursive: true, force: true });
  await context?.teardown();
});

async function participantSubmission(name: string) {
  const issued = await issueToken({ accountName: name });
  const created = await createSubmission(
    { accountId: issued.accountId, kind: "participant" },
    { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { method: "test", kind: "ngram" } },
    { enqueue },
  );
  return { ...created, accountId: issued.accountId };
}

describe("moveEvaluation with a refund", () => {
  it("ends void and refunded in one step, and refunds nothing when the move is refused", async () => {
    const { evaluationId } = await participantSubmission("atomic-void");
    // a stale attempt may neither void the evaluation nor refund it
    expect(await moveEvaluation(evaluationId, "void", { attempt: 7, reason: "stale", refund: true })).toBe(false);
    const untouched = await db().evaluation.findUniqueOrThrow({
      where: { id: evaluationId },
      include: { ledger: true },
    });
    expect([untouched.status, untouched.refunded, untouched.ledger.map((l) => l.kind)]).toEqual([
      "queued",
      false,
      ["charge"],
    ]);
    expect(await moveEvaluation(evaluationId, "void", { reason: "the arena's fault", refund: true })).toBe(true);
    const after = await db().evaluation.findUniqueOrThrow({ where: { id: evaluationId }, include: { ledger: true } });
    expect([after.status, after.refunded]).toEqual(["void", true]);
    expect(after.ledger.map((l) => [l.kind, l.amount]).sort()).toEqual([
      ["charge", 1],
      ["refund", -1],
    ]);
  });
});

describe("voidEvaluation", () => {
  it("voids a queued evaluation and refunds its charge once, however often it is called", async () => {
    const s = await participantSubmission("void-me");
    expect(await usedBudget(s.accountId, "qwen3-8b", "dev")).toBe(1);

    const first = await voidEvaluation({ evaluationId: s.evaluationId, reason: "the node lost its GPU" });
    expect(first).toEqual({ evaluationId: s.evaluationId, status: "void", refunded: true });
    const again = await voidEvaluation({ evaluationId: s.evaluationId, reason: "the node lost its GPU" });
    expect(again.refunded).toBe(true);

    const row = await db().evaluation.findUniqueOrThrow({
      where: { id: s.evaluationId },
      include: { ledger: true, events: true },
    });
    expect(row.status).toBe("void");
    expect(row.reason).toBe("the node lost its GPU");
    expect(row.refunded).toBe(true);
    expect(row.ledger.filter((l) => l.kind === "refund")).toHaveLength(1);
    expect(row.events.some((e) => e.type === "status" && (e.data as { status: string }).status === "void")).toBe(true);
    expect(await usedBudget(s.accountId, "qwen3-8b", "dev")).toBe(0);
  });

  it("refuses to void a finished evaluation, and names what is wrong with bad input", async () => {
    const s = await participantSubmission("scored-one");
    expect(await moveEvaluation(s.evaluationId, "scored")).toBe(true);
    await expect(voidEvaluation({ evaluationId: s.evaluationId, reason: "too late" })).rejects.toThrow(/is scored/);
    expect(await usedBudget(s.accountId, "qwen3-8b", "dev")).toBe(1);
    await expect(voidEvaluation({ evaluationId: "nope", reason: "missing" })).rejects.toThrow(/not found/);
    await expect(voidEvaluation({ evaluationId: s.evaluationId, reason: "" })).rejects.toThrow(/reason/);
  });
});

describe("listQueue", () => {
  it("lists queued evaluations oldest first and running ones apart", async () => {
    const a = await participantSubmission("queue-a");
    const b = await participantSubmission("queue-b");
    await db().evaluation.update({ where: { id: b.evaluationId }, data: { podId: "pod-b", leaseOwner: "worker-1" } });
    expect(await moveEvaluation(b.evaluationId, "running")).toBe(true);
    const queue = await listQueue();
    const queuedIds = queue.queued.map((r) => r.evaluationId);
    expect(queuedIds).toContain(a.evaluationId);
    expect(queuedIds).not.toContain(b.evaluationId);
    expect(queue.running.find((r) => r.evaluationId === b.evaluationId)).toMatchObject({
      status: "running",
      podId: "pod-b",
      leaseOwner: "worker-1",
      account: "queue-b",
    });
    const times = queue.queued.map((r) => r.queuedAt);
    expect([...times].sort()).toEqual(times);
  });
});

/** The launch.sh an inline engine archive holds. */
function launchOf(archive: Uint8Array | null): string {
  const entries = readTar(gunzipSync(Buffer.from(archive ?? new Uint8Array())));
  const launch = entries.find((e) => e.path.replace(/^\.\//, "") === "launch.sh");
  if (!launch) throw new Error("the archive holds no launch.sh");
  return launch.data.toString("utf8");
}

describe("runReference on the simulated runtime", () => {
  it("queues a reference on the reference account with the simulated engine for its kind", async () => {
    const created = await runReference(
      { taskId: "qwen3-8b", referenceKey: "ngram-4", profile: "ci" },
      { runtime: "sim", enqueue },
    );
    expect(enqueued).toContain(created.evaluationId);
    const submission = await db().submission.findUniqueOrThrow({
      where: { id: created.id },
      include: { account: true },
    });
    expect(submission).toMatchObject({
      referenceKey: "ngram-4",
      split: "test",
      profile: "ci",
      method: "n-gram k=4",
      kind: "ngram",
      engineSource: "inline",
      speculatorUri: null,
    });
    expect(submission.account.name).toBe("reference");
    expect(submission.engineSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(launchOf(submission.engineArchive)).toContain('"$ARENA_SIM_ENGINE" serve --mode ngram');
  });

  it("plays a checkpoint reference with the simulated engine's own drafter, needing no pinned checkpoint", async () => {
    const created = await runReference(
      { taskId: "qwen3-8b", referenceKey: "eagle3-redhatai-3" },
      { runtime: "sim", enqueue },
    );
    const submission = await db().submission.findUniqueOrThrow({ where: { id: created.id } });
    expect([submission.kind, submission.speculatorUri]).toEqual(["eagle3", null]);
    expect(launchOf(submission.engineArchive)).toContain("serve --mode eagle");
  });

  it("runs the A/A evaluation as the stock reference", async () => {
    const created = await runAA({ taskId: "qwen35-27b", split: "dev" }, { runtime: "sim", enqueue });
    const submission = await db().submission.findUniqueOrThrow({ where: { id: created.id } });
    expect(submission).toMatchObject({ referenceKey: "stock", kind: "other", taskId: "qwen35-27b", split: "dev" });
    expect(launchOf(submission.engineArchive)).toContain("serve --mode stock");
  });

  it("names a reference the task does not have, and a missing engine directory", async () => {
    await expect(
      runReference({ taskId: "qwen35-27b", referenceKey: "eagle3-redhatai-3" }, { runtime: "sim", enqueue }),
    ).rejects.toThrow(/not a reference of qwen35-27b/);
    await expect(runReference({ taskId: "nope", referenceKey: "stock" }, { runtime: "sim", enqueue })).rejects.toThrow(
      /task/,
    );
    await expect(
      runReference({ taskId: "qwen3-8b", referenceKey: "stock" }, { root: emptyRoot, runtime: "sim", enqueue }),
    ).rejects.toThrow(/no launch\.sh/);
  });
});

describe("runReference on the vLLM runtime", () => {
  it("packs the reference's own vLLM engine: MTP on qwen35-27b", async () => {
    const created = await runReference(
      { taskId: "qwen35-27b", referenceKey: "mtp-2", profile: "ci" },
      { runtime: "vllm", enqueue },
    );
    const submission = await db().submission.findUniqueOrThrow({ where: { id: created.id } });
    expect(submission).toMatchObject({ referenceKey: "mtp-2", kind: "mtp", method: "MTP k=2", speculatorUri: null });
    const launch = launchOf(submission.engineArchive);
    expect(launch).toContain("exec vllm serve");
    expect(launch).toContain(`'{"method": "mtp", "num_speculative_tokens": 2}'`);
  });

  it("packs the stock engine itself for the A/A run, and n-gram with its prompt lookup", async () => {
    const aa = await runAA({ taskId: "qwen3-8b", split: "dev" }, { runtime: "vllm", enqueue });
    const stock = await db().submission.findUniqueOrThrow({ where: { id: aa.id } });
    expect(launchOf(stock.engineArchive)).toBe(await readFile("lib/pods/stock-engines/vllm/launch.sh", "utf8"));
    const ngram = await runReference({ taskId: "qwen3-8b", referenceKey: "ngram-4" }, { runtime: "vllm", enqueue });
    const row = await db().submission.findUniqueOrThrow({ where: { id: ngram.id } });
    expect(launchOf(row.engineArchive)).toContain('"method": "ngram", "num_speculative_tokens": 4');
  });

  it("refuses a checkpoint reference until the operators pin its commit, charging nothing", async () => {
    const reference = await db().account.findUniqueOrThrow({ where: { name: "reference" } });
    const before = await db().submission.count({ where: { accountId: reference.id } });
    await expect(
      runReference({ taskId: "qwen3-8b", referenceKey: "draft-qwen3-0.6b-4" }, { runtime: "vllm", enqueue }),
    ).rejects.toThrow(/cannot run on vllm: its checkpoint Qwen\/Qwen3-0\.6B has no pinned commit/);
    expect(await db().submission.count({ where: { accountId: reference.id } })).toBe(before);
  });
});
