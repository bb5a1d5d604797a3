import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getOne } from "@/app/api/submissions/[id]/route";
import { db } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { LocalPodBackend } from "../pods/local/local-pod-backend";
import { createSubmission } from "../submissions/create-submission";
import { getSubmission } from "../submissions/get-submission";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { issueToken } from "../tokens/issue-token";
import { moveEvaluation } from "./move-evaluation";
import { PATH_WORD } from "./public-reason";
import { recordResult } from "./record-result";
import { runEvaluation } from "./run-evaluation";

// What the public reads about an evaluation (its reason, its status events, the API) names no server path, and a
// failing engine's log lines reach only its submitter and the operators.

let ctx: ArenaTestContext;
let work: string;
let dataFile: string;
const inline = gzipSync(
  writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\n"), mode: 0o755 }]),
).toString("base64");

async function submit(accountId: string) {
  return createSubmission(
    { accountId, kind: "participant" },
    { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { kind: "other" }, profile: "ci" },
    { enqueue: async () => undefined },
  );
}

async function statusEvents(evaluationId: string) {
  const events = await db().evaluationEvent.findMany({
    where: { evaluationId, type: "status" },
    orderBy: { seq: "asc" },
  });
  return events.map((e) => e.data as { status: string; reason: string | null });
}

function get(id: string, token: string) {
  return getOne(
    new Request(`http://arena.test/api/submissions/${id}`, { headers: { authorization: `Bearer ${token}` } }),
    { params: Promise.resolve({ id }) },
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "public-words-"));
  // the arena's data dir is a file: sealing an engine fails on the arena's side with an error naming its path
  dataFile = join(work, "not-a-directory");
  await writeFile(dataFile, "");
  ctx = await setupArenaTestContext({ ARENA_DATA_DIR: dataFile });
});

afterAll(async () => {
  await ctx?.teardown();
  await rm(work, { recursive: true, force: true });
});

describe("public reasons name no server path", () => {
  it("voids an arena-side fetch failure with the error's code, not its path, and refunds it", async () => {
    const { accountId } = await issueToken({ accountName: "ursula" });
    const created = await submit(accountId);
    const backend = new LocalPodBackend({ stateDir: join(work, "pods"), agentEnv: {} });
    await runEvaluation(created.evaluationId, { backend, workerId: "public-words" });
    const row = await db().evaluation.findUniqueOrThrow({ where: { id: created.evaluationId } });
    expect([row.status, row.refunded]).toEqual(["void", true]);
    expect(row.reason).toBe("fetching failed on the arena's side: a file system or system error (ENOTDIR)");
    const events = await statusEvents(created.evaluationId);
    expect(events.at(-1)).toMatchObject({ status: "void", reason: row.reason });
    expect(JSON.stringify(await getSubmission(created.id))).not.toContain(work);
  });

  it("replaces a path a reason still holds where it is stored, in the row and in the status event", async () => {
    const { accountId } = await issueToken({ accountName: "victor" });
    const created = await submit(accountId);
    const raw = `the pod was lost (pod-lost: Error: x at ${join(dataFile, "local-pods", "p1", "agent.js")}:3:9)`;
    expect(await moveEvaluation(created.evaluationId, "void", { reason: raw, refund: true })).toBe(true);
    const row = await db().evaluation.findUniqueOrThrow({ where: { id: created.evaluationId } });
    expect(row.reason).toBe(`the pod was lost (pod-lost: Error: x at ${PATH_WORD})`);
    expect((await statusEvents(created.evaluationId)).at(-1)!.reason).toBe(row.reason);
  });
});

describe("a failing engine's log lines", () => {
  it("reach its submitter and the operators through the API, and nobody else", async () => {
    const owner = await issueToken({ accountName: "wanda" });
    const other = await issueToken({ accountName: "xavier" });
    const operator = await issueToken({ accountName: "operator bot", kind: "admin" });
    const created = await submit(owner.accountId);
    await moveEvaluation(created.evaluationId, "running", { attempt: 0 });
    await recordResult(created.evaluationId, 0, {
      type: "result",
      outcome: "scored",
      reason: "the candidate engine died during busy",
      record: null,
      logTail: "engine: read 418 lines of the hidden pool",
    });

    const own = (await (await get(created.id, owner.token)).json()) as { evaluation: Record<string, unknown> };
    expect(own.evaluation.log_tail).toBe("engine: read 418 lines of the hidden pool");
    const admin = (await (await get(created.id, operator.token)).json()) as { evaluation: Record<string, unknown> };
    expect(admin.evaluation.log_tail).toBe("engine: read 418 lines of the hidden pool");
    const theirs = await get(created.id, other.token);
    expect(theirs.status).toBe(200);
    const seen = (await theirs.json()) as { evaluation: Record<string, unknown> };
    expect(seen.evaluation).toMatchObject({
      status: "scored",
      specscore: 0,
      reason: "the candidate engine died during busy",
    });
    expect(seen.evaluation).not.toHaveProperty("log_tail");
    // the events stream's view (no reader) holds no log lines either
    expect(JSON.stringify(await getSubmission(created.id))).not.toContain("hidden pool");
  });
});
