import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BoardTable } from "@/components/board/board-table";
import { LatestList } from "@/components/board/latest-list";
import { db } from "@/lib/db/client";
import { packDirectory } from "@/lib/engine-archive/pack-directory";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { recordResult } from "@/lib/evaluations/record-result";
import { runEvaluation } from "@/lib/evaluations/run-evaluation";
import { buildRecord, type MeasuredFigures } from "@/lib/gates/record/build-record";
import { GATE_REASONS } from "@/lib/gates/record/reasons";
import type { AgentEvent } from "@/lib/pods/agent/events";
import { LocalPodBackend } from "@/lib/pods/local/local-pod-backend";
import type { TaskId } from "@/lib/protocol";
import { createSubmission } from "@/lib/submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "@/lib/testing/arena-test-context";
import { issueToken } from "@/lib/tokens/issue-token";
import { getEvaluationPage } from "./get-evaluation";
import { listBoard } from "./list-board";
import { listRecentEvaluations } from "./list-recent";

// The board's rules (protocol sections 5, 7 and 8) on real rows: every evaluation is made by createSubmission and
// ended by the worker's own recordResult with the result the pod agent emits, then read by the board's queries.

type PodResult = Extract<AgentEvent, { type: "result" }>;

let context: ArenaTestContext;
let work: string;
let inline: string;
const enqueue = async () => {};
const NOT_STARTED = "the candidate engine did not start: the engine exited before it was healthy (code 3)";

const all = (requests: number) => ({ candidate: { requests, unanswered: 0 }, stock: { requests, unanswered: 0 } });
const lengths = { ratio: 1, low: 0.97, high: 1.03, paired: true, replies: 900 };

/** What the judge measured, as honest figures; `fail` breaks one gate, as a caught engine would. */
function figures(task: TaskId, ratios: [number, number, number], fail?: "fidelity" | "likelihood"): MeasuredFigures {
  const [solo, team, busy] = ratios;
  return {
    task,
    passes: { solo: [solo, solo, solo], team: [team, team, team], busy: [busy, busy, busy] },
    greedyAgreement: 0.9,
    likelihood:
      fail === "likelihood"
        ? { gap: -0.096, se: 0.0145, candidate: -0.74, stock: -0.644 }
        : { gap: 0.001, se: 0.004, candidate: -0.643, stock: -0.644 },
    argmax: { gap: 0, se: 0.0005, candidate: 0.14, stock: 0.14 },
    fidelity: fail === "fidelity" ? 0.09 : 0,
    lengths: { solo: lengths, team: lengths, busy: lengths, pooled: lengths },
    memory: { peak_mib: 160_000, allowed_mib: 169_119 },
    offload: [],
    answers: { greedy: all(64), likelihood: all(512), fidelity: all(64) },
    acceptance: { solo: 3, team: 3, busy: 3 },
    reproducibility: {
      profile: "full",
      seeds: { evaluation: 1 },
      engine_archive_sha256: null,
      speculator_commit: null,
      speculator_sha256: null,
      image: "simulated engine",
      device: "simulated B200",
    },
  };
}

/** The result event the pod agent emits once the gates are judged: every judged evaluation is `scored`. */
const judged = (f: MeasuredFigures): PodResult => {
  const record = buildRecord(f);
  return {
    type: "result",
    outcome: "scored",
    reason: record.reason,
    record: record as unknown as Record<string, unknown>,
  };
};

interface Who {
  accountId: string;
  kind: "participant" | "reference";
}

async function account(name: string): Promise<Who> {
  return { accountId: (await issueToken({ accountName: name })).accountId, kind: "participant" };
}

/** A full-protocol submission, its evaluation taken to running as a worker would, then ended with `result`. */
async function evaluate(
  who: Who,
  split: "dev" | "test",
  result: PodResult,
  options: { task?: TaskId; referenceKey?: string; method?: string } = {},
): Promise<string> {
  const created = await createSubmission(
    who,
    {
      task_id: options.task ?? "qwen3-8b",
      split,
      engine: { inline },
      solution: { method: options.method ?? "m", kind: "eagle3" },
      profile: "full",
    },
    { enqueue, ...(options.referenceKey ? { referenceKey: options.referenceKey } : {}) },
  );
  expect(await moveEvaluation(created.evaluationId, "running", { attempt: 0, phase: "candidate-timed" })).toBe(true);
  expect(await recordResult(created.evaluationId, 0, result)).toBe(true);
  return created.evaluationId;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "board-rules-"));
  context = await setupArenaTestContext({
    ARENA_DATA_DIR: join(work, "data"),
    GIT_BASE_URL: `file://${join(work, "git")}`,
  });
  inline = (await packDirectory("lib/sim-engine/engines/stock")).toString("base64");
});

afterAll(async () => {
  await context?.teardown();
  await rm(work, { recursive: true, force: true });
});

describe("a caught cheat costs what the protocol says", () => {
  it("replaces an account's ranked passing test evaluation with its later gate failure, at 0 with the reason", async () => {
    const alice = await account("alice");
    const bob = await account("bob");
    const passing = await evaluate(alice, "test", judged(figures("qwen3-8b", [1.9, 1.5, 1.4])));
    await evaluate(bob, "test", judged(figures("qwen3-8b", [1.1, 1.05, 1.02])));
    let board = await listBoard("qwen3-8b");
    expect(board.participants.map((e) => [e.account, e.evaluationId])).toEqual([
      ["alice", passing],
      ["bob", expect.any(String)],
    ]);

    const caught = await evaluate(alice, "test", judged(figures("qwen3-8b", [2.5, 2.0, 1.8], "fidelity")));
    const row = await db().evaluation.findUniqueOrThrow({ where: { id: caught } });
    expect([row.status, row.specscore, row.reason]).toEqual(["scored", 0, GATE_REASONS.fidelity]);
    board = await listBoard("qwen3-8b");
    expect(board.participants.map((e) => [e.account, e.rank, e.result?.score])).toEqual([
      ["bob", 1, expect.any(Number)],
      ["alice", 2, 0],
    ]);
    const alicesRow = board.participants.find((e) => e.account === "alice")!;
    expect(alicesRow.evaluationId).toBe(caught);
    expect(alicesRow.result?.reason).toBe(GATE_REASONS.fidelity);
    // what it measured is still shown beside the 0, as the seed's board shows the failed n-gram's speedups
    expect(alicesRow.result?.workloads.solo.ratio).toBeCloseTo(2.5, 9);

    const html = renderToStaticMarkup(
      <BoardTable caption="qwen3-8b" participants={board.participants} references={board.references} />,
    );
    const aliceRow = html.slice(html.indexOf(`/evaluations/${caught}`));
    expect(aliceRow).toMatch(/^[\s\S]*?0\.000[\s\S]*?failed[\s\S]*?differ from the stock engine&#x27;s/);
  });

  it("an agent built before the rule, reporting a gate failure as failed with its record, ranks the same", async () => {
    const dan = await account("dan");
    const legacy = judged(figures("qwen3-8b", [1.4, 1.3, 1.2], "likelihood"));
    const id = await evaluate(dan, "test", { ...legacy, outcome: "failed" });
    const board = await listBoard("qwen3-8b");
    const entry = board.participants.find((e) => e.account === "dan")!;
    expect(entry.evaluationId).toBe(id);
    expect([entry.status, entry.result?.score, entry.result?.reason]).toEqual(["scored", 0, GATE_REASONS.likelihood]);
  });

  it("ranks a candidate that did not start at 0, with its reason, and keeps its log for the submitter only", async () => {
    const carol = await account("carol");
    await evaluate(carol, "test", judged(figures("qwen3-8b", [1.3, 1.3, 1.3])));
    const dead = await evaluate(carol, "test", {
      type: "result",
      outcome: "scored",
      reason: NOT_STARTED,
      record: null,
      logTail: "Traceback: CUDA error: an illegal memory access",
    });
    const row = await db().evaluation.findUniqueOrThrow({ where: { id: dead }, include: { ledger: true } });
    expect([row.status, row.specscore, row.reason, row.refunded]).toEqual(["scored", 0, NOT_STARTED, false]);
    expect(row.ledger.map((l) => l.kind)).toEqual(["charge"]);

    const entry = (await listBoard("qwen3-8b")).participants.find((e) => e.account === "carol")!;
    expect([entry.evaluationId, entry.result?.score, entry.result?.reason]).toEqual([dead, 0, NOT_STARTED]);
    const latest = await listRecentEvaluations({ limit: 1, profiles: "full" });
    const html = renderToStaticMarkup(<LatestList entries={latest} empty="none" />);
    expect(html).toContain("0.000");
    expect(html).toContain("failed: ");
    expect(html).toContain("the candidate engine did not start");

    const page = await getEvaluationPage(dead);
    expect([page.hasLogTail, page.logTail]).toEqual([true, null]);
    const operators = await getEvaluationPage(dead, { mayReadLogTail: true });
    expect(operators.logTail).toBe("Traceback: CUDA error: an illegal memory access");
  });

  it("keeps a failed reference on the board at 0.000, marked failed with its reason", async () => {
    const reference = await db().account.findUniqueOrThrow({ where: { name: "reference" } });
    const who: Who = { accountId: reference.id, kind: "reference" };
    await evaluate(who, "test", judged(figures("qwen35-27b", [1.0, 1.0, 1.0])), {
      task: "qwen35-27b",
      referenceKey: "stock",
      method: "stock engine (A/A)",
    });
    const ngram = await evaluate(who, "test", judged(figures("qwen35-27b", [1.25, 0.61, 0.66], "likelihood")), {
      task: "qwen35-27b",
      referenceKey: "ngram-4",
      method: "n-gram k=4",
    });
    const board = await listBoard("qwen35-27b");
    expect(board.references.map((e) => [e.referenceKey, e.rank, e.result?.score])).toEqual([
      ["stock", 1, expect.any(Number)],
      ["ngram-4", 2, 0],
    ]);
    const html = renderToStaticMarkup(
      <BoardTable caption="qwen35-27b" participants={board.participants} references={board.references} />,
    );
    const row = html.slice(html.indexOf(`/evaluations/${ngram}`));
    expect(row).toMatch(
      /^[\s\S]*?0\.000[\s\S]*?1\.25[\s\S]*?0\.61[\s\S]*?0\.66[\s\S]*?failed[\s\S]*?sampled replies are more or less likely under the target than the stock engine&#x27;s/,
    );
  });

  it("flags the dev/test gap when the test evaluation fails a gate", async () => {
    const erin = await account("erin");
    await evaluate(erin, "dev", judged(figures("qwen3-8b", [1.6, 1.5, 1.4])));
    const caught = await evaluate(erin, "test", judged(figures("qwen3-8b", [1.6, 1.5, 1.4], "fidelity")));
    const entry = (await listBoard("qwen3-8b")).participants.find((e) => e.account === "erin")!;
    expect(entry.evaluationId).toBe(caught);
    expect(entry.devGap).toEqual({ test: 0, dev: expect.closeTo(1.497, 2), drop: 1 });
    const page = await getEvaluationPage(caught);
    expect(page.devGap).toEqual(entry.devGap);
  });

  it("does not rank a submission whose engine the participant's repository could not give (fetch failure)", async () => {
    const frank = await account("frank");
    // a real repository, served through GIT_BASE_URL, that lacks the commit the submission names
    const repo = join(work, "git", "frank", "engine");
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, "launch.sh"), "#!/usr/bin/env bash\n");
    const git = (...args: string[]) =>
      promisify(execFile)("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo });
    await git("init", "-q");
    await git("add", "-A");
    await git("commit", "-q", "-m", "engine");
    const created = await createSubmission(
      frank,
      {
        task_id: "qwen3-8b",
        split: "test",
        engine: { uri: "frank/engine", revision: "1".repeat(40) },
        solution: { method: "m", kind: "ngram" },
        profile: "full",
      },
      { enqueue },
    );
    const backend = new LocalPodBackend({ stateDir: join(work, "pods"), agentEnv: {} });
    expect(await runEvaluation(created.evaluationId, { backend, workerId: "board-rules" })).toEqual({ kind: "done" });
    const row = await db().evaluation.findUniqueOrThrow({
      where: { id: created.evaluationId },
      include: { ledger: true },
    });
    expect([row.status, row.specscore, row.refunded]).toEqual(["failed", null, false]);
    expect(row.reason).toBe(`engine repository frank/engine has no commit ${"1".repeat(40)}`);
    expect(row.ledger.map((l) => l.kind)).toEqual(["charge"]);
    const board = await listBoard("qwen3-8b");
    expect([...board.participants, ...board.references, ...board.profiled].map((e) => e.account)).not.toContain(
      "frank",
    );
  });
});
