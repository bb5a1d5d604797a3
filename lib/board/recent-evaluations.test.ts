import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { packDirectory } from "@/lib/engine-archive/pack-directory";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { recentDurations } from "@/lib/evaluations/recent-durations";
import { createSubmission } from "@/lib/submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "@/lib/testing/arena-test-context";
import { issueToken } from "@/lib/tokens/issue-token";
import { countActiveEvaluations } from "./count-active";
import { evaluationExists } from "./evaluation-exists";
import { listRecentEvaluations } from "./list-recent";

let context: ArenaTestContext;
let submit: (profile: string) => Promise<{ id: string; evaluationId: string }>;

beforeAll(async () => {
  context = await setupArenaTestContext();
  const issued = await issueToken({ accountName: "latest reader" });
  const inline = (await packDirectory("lib/sim-engine/engines/stock")).toString("base64");
  submit = (profile) =>
    createSubmission(
      { accountId: issued.accountId, kind: "participant" },
      {
        task_id: "qwen3-8b",
        split: "dev",
        engine: { inline },
        solution: { method: `run ${profile}`, kind: "ngram" },
        ...(profile === "full" ? {} : { profile }),
      },
      { enqueue: async () => {} },
    );
});

afterAll(async () => {
  await context?.teardown();
});

const setTimes = (id: string, times: { queuedAt: string; startedAt?: string; finishedAt?: string }) =>
  db().evaluation.update({
    where: { id },
    data: {
      queuedAt: new Date(times.queuedAt),
      startedAt: times.startedAt ? new Date(times.startedAt) : null,
      finishedAt: times.finishedAt ? new Date(times.finishedAt) : null,
    },
  });

describe("the latest evaluations", () => {
  it("come newest change first, each with the change it is ordered by, test profiles apart", async () => {
    const early = await submit("full");
    const late = await submit("full");
    const smoke = await submit("smoke");
    // `early` was queued first but finished last: it leads, and says it finished
    await moveEvaluation(early.evaluationId, "scored", { data: { specscore: 1.2, result: { score: 1.2 } } });
    await setTimes(early.evaluationId, {
      queuedAt: "2026-12-01T10:00:00Z",
      startedAt: "2026-12-01T10:01:00Z",
      finishedAt: "2026-12-01T11:00:00Z",
    });
    await setTimes(late.evaluationId, { queuedAt: "2026-12-01T10:30:00Z" });
    await setTimes(smoke.evaluationId, { queuedAt: "2026-12-01T10:45:00Z" });

    const full = await listRecentEvaluations({ limit: 10, profiles: "full" });
    expect(full.map((e) => [e.evaluationId, e.change, e.changedAt])).toEqual([
      [early.evaluationId, "finished", "2026-12-01T11:00:00.000Z"],
      [late.evaluationId, "queued", "2026-12-01T10:30:00.000Z"],
    ]);
    const tests = await listRecentEvaluations({ limit: 10, profiles: "test" });
    expect(tests.map((e) => [e.evaluationId, e.profile])).toEqual([[smoke.evaluationId, "smoke"]]);
    expect(await countActiveEvaluations()).toBe(2);
  });

  it("tells an evaluation's address, by its id or its submission's, from one that does not exist", async () => {
    const run = await submit("ci");
    expect(await evaluationExists(run.evaluationId)).toBe(true);
    expect(await evaluationExists(run.id)).toBe(true);
    expect(await evaluationExists("doesnotexist")).toBe(false);
  });
});

describe("recentDurations", () => {
  it("is the median, start to finish, of each profile's last scored runs; failed ones stopped early and do not count", async () => {
    const runs = [
      ["ci", 60, "scored"],
      ["ci", 100, "scored"],
      ["ci", 80, "scored"],
      ["ci", 5, "failed"],
    ] as const;
    for (const [profile, seconds, status] of runs) {
      const run = await submit(profile);
      await moveEvaluation(run.evaluationId, status, status === "scored" ? { data: { specscore: 1 } } : {});
      await setTimes(run.evaluationId, {
        queuedAt: "2026-12-01T12:00:00Z",
        startedAt: "2026-12-01T12:01:00Z",
        finishedAt: new Date(Date.parse("2026-12-01T12:01:00Z") + seconds * 1000).toISOString(),
      });
    }
    const durations = await recentDurations();
    expect(durations.get("ci")).toEqual({ medianSeconds: 80, runs: 3 });
    expect(durations.get("full")).toEqual({ medianSeconds: 3540, runs: 1 });
    expect(durations.has("smoke")).toBe(false);
  });
});
