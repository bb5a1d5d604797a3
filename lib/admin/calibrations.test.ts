import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getReport } from "@/app/api/admin/calibrations/[id]/report/route";
import { figures } from "@/lib/calibration/calibration-fixtures";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { buildRecord } from "@/lib/gates";
import { VLLM_REFERENCE_ENGINES } from "@/lib/pods/reference-engines/reference-engines";
import type { PodBackend } from "@/lib/pods/types";
import { calibrationReportSchema } from "@/lib/protocol/calibration-schema";
import type { ArenaTestContext } from "@/lib/testing/arena-test-context";
import { setupOperatorContext } from "@/lib/testing/operator-session";
import { maintenanceProcessor } from "@/workers/maintenance-processor";
import { listCalibrations } from "./list-calibrations";
import { reportCalibration } from "./report-calibration";
import { startCalibration } from "./start-calibration";
import { voidEvaluation } from "./void-evaluation";

let ctx: ArenaTestContext;
let session: string;
const enqueued: string[] = [];
/** A pod backend with no pod running: the sweep's other chores find nothing to do. */
const noPods = { list: async () => [] } as unknown as PodBackend;
const enqueue = async (id: string) => {
  enqueued.push(id);
};

beforeAll(async () => {
  ({ ctx, session } = await setupOperatorContext());
});
afterAll(async () => {
  await ctx?.teardown();
});

/** The evaluation as its worker leaves it: checked, its record stored, then moved to `to` (the one terminal move). */
async function finish(evaluationId: string, to: "scored" | "failed" | "void", record?: object) {
  await db().evaluation.update({
    where: { id: evaluationId },
    data: {
      status: "checking",
      startedAt: new Date(Date.now() - 60_000),
      ...(record
        ? { result: record as Prisma.InputJsonValue, specscore: (record as { specscore: number }).specscore }
        : {}),
    },
  });
  expect(await moveEvaluation(evaluationId, to, { reason: to === "scored" ? null : "the engine did not start" })).toBe(
    true,
  );
}

/** One file of a stored inline engine archive, as tar reads it. */
async function archivedFile(archive: Uint8Array, name: string): Promise<string> {
  const child = promisify(execFile)("tar", ["-xzO", `./${name}`], { encoding: "utf8" });
  child.child.stdin?.end(Buffer.from(archive));
  return (await child).stdout;
}

async function reportRoute(id: string) {
  return getReport(
    new Request(`http://arena.test/api/admin/calibrations/${id}/report`, {
      headers: { host: "arena.test", cookie: `next-auth.session-token=${session}` },
    }),
    { params: Promise.resolve({ id }) },
  );
}

describe("an operator's calibration", () => {
  it("refuses bad input naming the field, and stores nothing", async () => {
    const before = await db().calibration.count();
    await expect(startCalibration({ taskId: "qwen3-8b", profile: "ci", aa: 1 }, { enqueue })).rejects.toThrow(
      /A\/A runs: at least 2/,
    );
    await expect(startCalibration({ taskId: "gpt-9", profile: "ci", aa: 4 }, { enqueue })).rejects.toThrow(/task:/);
    await expect(startCalibration({ taskId: "qwen3-8b", profile: "long", aa: 4 }, { enqueue })).rejects.toThrow(
      /profile: not a profile/,
    );
    expect(await db().calibration.count()).toBe(before);
    expect(await db().evaluation.count({ where: { calibrationRun: { isNot: null } } })).toBe(0);
  });

  it("queues its A/A runs and references, reports once the last is final, from their records, and only once", async () => {
    const started = await startCalibration(
      { taskId: "qwen3-8b", profile: "ci", aa: 3, split: "dev" },
      { enqueue, runtime: "sim" },
    );
    // three A/A runs, then the three simulated references of qwen3-8b (section 11), each queued on the reference account
    expect(started.queued).toBe(6);
    expect(started.skipped).toEqual([]);
    const runs = await db().calibrationRun.findMany({
      where: { calibrationId: started.calibrationId },
      orderBy: { position: "asc" },
      include: { evaluation: { include: { submission: { include: { account: true } } } } },
    });
    expect(runs.map((r) => r.group)).toEqual(["aa", "aa", "aa", "reference", "reference", "reference"]);
    expect(runs.slice(0, 3).every((r) => r.referenceKey === "stock")).toBe(true);
    expect(new Set(runs.slice(3).map((r) => r.referenceKey)).size).toBe(3);
    for (const r of runs) {
      expect(r.evaluation.submission.account.kind).toBe("reference");
      expect(r.evaluation.submission.profile).toBe("ci");
      expect(enqueued).toContain(r.evaluationId);
    }

    // A/A runs a little apart, as the machine's noise leaves them; the references each at their own speed
    const aaSpeeds = [1.0, 1.02, 0.98];
    for (const [i, r] of runs.slice(0, 3).entries()) {
      const s = aaSpeeds[i]!;
      await finish(
        r.evaluationId,
        "scored",
        buildRecord(figures({ passes: { solo: [s, s, s], team: [s, s, s], busy: [s, s, s] } })),
      );
    }
    await finish(
      runs[3]!.evaluationId,
      "scored",
      buildRecord(figures({ passes: { solo: [1.8, 1.8, 1.8], team: [1.2, 1.2, 1.2], busy: [1, 1, 1] } })),
    );
    await finish(runs[4]!.evaluationId, "failed");
    expect(await reportCalibration(started.calibrationId)).toBe("waiting");
    const midway = (await listCalibrations()).find((c) => c.id === started.calibrationId)!;
    expect(midway).toMatchObject({ finished: 5, total: 6, headline: null, reportedAt: null });
    expect((await reportRoute(started.calibrationId)).status).toBe(409);

    // a terminal move alone builds nothing: its worker's job or the operator's void asks once it is done
    expect((await db().calibration.findUniqueOrThrow({ where: { id: started.calibrationId } })).status).toBe("running");
    // the last one, voided by the operators, builds the report
    await voidEvaluation({ evaluationId: runs[5]!.evaluationId, reason: "the arena's fault" });
    const row = await db().calibration.findUniqueOrThrow({ where: { id: started.calibrationId } });
    expect(row.status).toBe("reported");
    expect(row.failure).toBeNull();
    const report = calibrationReportSchema.parse(row.report);
    expect(report).toMatchObject({ task: "qwen3-8b", profile: "ci", runtime: "sim", full_protocol: false });
    expect(report.aa.requested).toBe(3);
    expect(report.aa.runs.map((r) => r.specscore)).toEqual(aaSpeeds.map((s) => expect.closeTo(s, 6)));
    // the A/A error is each A/A SpecScore's distance from 1
    expect(report.aa.specscore_error?.max).toBeCloseTo(0.02, 6);
    expect(report.references.map((r) => [r.key, r.outcome])).toEqual(
      runs.slice(3).map((r, i) => [r.referenceKey, ["scored", "failed", "void"][i]]),
    );
    expect(report.references[0]!.ratios?.solo).toBeCloseTo(1.8, 6);

    // again, or from the sweep: nothing changes
    expect(await reportCalibration(started.calibrationId)).toBe("already");
    await maintenanceProcessor({ backend: noPods })();
    const again = await db().calibration.findUniqueOrThrow({ where: { id: started.calibrationId } });
    expect(again.reportedAt).toEqual(row.reportedAt);
    expect(again.report).toEqual(row.report);

    const listed = (await listCalibrations()).find((c) => c.id === started.calibrationId)!;
    expect(listed.headline?.aaErrorMax).toBeCloseTo(0.02, 6);
    expect(listed.headline?.gatesPassed).toBe(true);

    const served = await reportRoute(started.calibrationId);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-disposition")).toContain(
      `calibration-qwen3-8b-ci-${started.calibrationId}.json`,
    );
    expect(calibrationReportSchema.parse(await served.json())).toEqual(report);
    const unsigned = await getReport(
      new Request(`http://arena.test/api/admin/calibrations/${started.calibrationId}/report`, {
        headers: { host: "arena.test" },
      }),
      { params: Promise.resolve({ id: started.calibrationId }) },
    );
    expect(unsigned.status).toBe(401);
    expect((await reportRoute("nope")).status).toBe(404);
  });

  it("is reported by the maintenance sweep when no terminal move reached it", async () => {
    const started = await startCalibration({ taskId: "qwen3-8b", profile: "ci", aa: 2 }, { enqueue, runtime: "sim" });
    const runs = await db().calibrationRun.findMany({ where: { calibrationId: started.calibrationId } });
    // ended behind the verbs' back (a restored backup, say): no move ran the hook
    await db().evaluation.updateMany({
      where: { id: { in: runs.map((r) => r.evaluationId) } },
      data: { status: "void", finishedAt: new Date() },
    });
    expect((await db().calibration.findUniqueOrThrow({ where: { id: started.calibrationId } })).status).toBe("running");
    await maintenanceProcessor({ backend: noPods })();
    const row = await db().calibration.findUniqueOrThrow({ where: { id: started.calibrationId } });
    expect(row.status).toBe("reported");
    // no evaluation came back with a record: the report says so rather than inventing figures
    expect(row.failure).toBeNull();
    const report = calibrationReportSchema.parse(row.report);
    expect(report.aa.specscore_error).toBeNull();
    expect(report.aa.runs.map((r) => [r.outcome, r.specscore])).toEqual([
      ["void", null],
      ["void", null],
    ]);
    expect(report.references.every((r) => r.outcome === "void" && r.specscore === null)).toBe(true);
  });

  it("on the vLLM runtime queues each reference's vLLM engine, lists the unpinned ones as skipped, says its runtime", async () => {
    const started = await startCalibration(
      { taskId: "qwen3-8b", profile: "ci", aa: 2, split: "dev" },
      { enqueue, runtime: "vllm" },
    );
    // the draft and EAGLE-3 references name checkpoints with no pinned commit (lib/protocol/v1.ts): not played
    expect(started.queued).toBe(3);
    expect(started.skipped.map((s) => s.referenceKey)).toEqual(["draft-qwen3-0.6b-4", "eagle3-redhatai-3"]);
    for (const s of started.skipped) expect(s.why).toMatch(/has no pinned commit/);
    const row = await db().calibration.findUniqueOrThrow({ where: { id: started.calibrationId } });
    expect(row.runtime).toBe("vllm");
    const runs = await db().calibrationRun.findMany({
      where: { calibrationId: started.calibrationId },
      orderBy: { position: "asc" },
      include: { evaluation: { include: { submission: true } } },
    });
    expect(runs.map((r) => [r.group, r.referenceKey])).toEqual([
      ["aa", "stock"],
      ["aa", "stock"],
      ["reference", "ngram-4"],
    ]);
    // each queued submission carries the vLLM engine directory that plays it, not the simulated engine's
    for (const r of runs) {
      const archive = r.evaluation.submission.engineArchive;
      expect(archive).not.toBeNull();
      const dir = VLLM_REFERENCE_ENGINES[r.referenceKey]!;
      expect(await archivedFile(archive!, "launch.sh")).toBe(await readFile(`${dir}/launch.sh`, "utf8"));
      expect(await archivedFile(archive!, "launch.sh")).not.toContain("ARENA_SIM_ENGINE");
    }

    for (const r of runs) await finish(r.evaluationId, "void");
    await maintenanceProcessor({ backend: noPods })();
    const reported = await db().calibration.findUniqueOrThrow({ where: { id: started.calibrationId } });
    expect(reported.status).toBe("reported");
    const report = calibrationReportSchema.parse(reported.report);
    expect(report).toMatchObject({ task: "qwen3-8b", profile: "ci", runtime: "vllm" });
    expect(report.aa.requested).toBe(2);
    expect(report.references.map((r) => r.key)).toEqual(["ngram-4"]);
  });
});
