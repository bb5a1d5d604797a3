import { calibrationReportFrom, type FinishedPod } from "@/lib/calibration/build-report";
import { AA_LABEL, type CalibrationPod } from "@/lib/calibration/pod-outcome";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import type { EvaluationStatus } from "@/lib/db/generated/enums";
import { env } from "@/lib/env";
import { isTerminal } from "@/lib/evaluations/status-machine";
import { resultRecordSchema } from "@/lib/gates/record/schema";
import { logger } from "@/lib/logger";
import { currentProtocol, getTask, isTaskId } from "@/lib/protocol";

export type CalibrationReportState = "reported" | "failed" | "waiting" | "already" | "missing";

const OUTCOME: Record<EvaluationStatus, CalibrationPod["outcome"]> = {
  scored: "scored",
  failed: "failed",
  void: "void",
  cancelled: "void",
  queued: "error",
  fetching: "error",
  running: "error",
  checking: "error",
};

/**
 * Builds a calibration's report once every evaluation it queued is final, and keeps it: written once (the row moves
 * from running to reported only), so calling it again, or from two workers at once, changes nothing. A calibration
 * whose evaluations left nothing to build a report from is kept reported with why.
 */
export async function reportCalibration(calibrationId: string): Promise<CalibrationReportState> {
  const calibration = await db().calibration.findUnique({
    where: { id: calibrationId },
    include: {
      runs: {
        orderBy: { position: "asc" },
        include: {
          evaluation: {
            select: { status: true, seed: true, reason: true, result: true, startedAt: true, finishedAt: true },
          },
        },
      },
    },
  });
  if (!calibration) return "missing";
  if (calibration.status !== "running") return "already";
  if (calibration.runs.some((r) => !isTerminal(r.evaluation.status))) return "waiting";
  const taskId = calibration.taskId;
  if (!isTaskId(taskId)) throw new Error(`calibration ${calibrationId} names an unknown task ${taskId}`);
  const labels = new Map(getTask(taskId).references.map((r) => [r.key, r]));
  const pods: FinishedPod[] = calibration.runs.map((run) => {
    const e = run.evaluation;
    const parsed = e.result === null ? null : resultRecordSchema.safeParse(e.result);
    const reference = labels.get(run.referenceKey);
    return {
      group: run.group === "aa" ? "aa" : "reference",
      pod: {
        key: run.referenceKey,
        label: run.group === "aa" ? AA_LABEL : (reference?.label ?? run.referenceKey),
        mode: reference?.kind ?? run.referenceKey,
        seed: String(e.seed),
        outcome: OUTCOME[e.status],
        reason: e.status === "cancelled" ? "cancelled" : e.reason,
        record: parsed?.success ? parsed.data : null,
        wallSeconds: e.startedAt && e.finishedAt ? (e.finishedAt.getTime() - e.startedAt.getTime()) / 1000 : 0,
      },
    };
  });
  const now = new Date();
  const settings = env();
  let report: Prisma.InputJsonValue | undefined;
  let failure: string | null = null;
  try {
    report = calibrationReportFrom({
      protocol: currentProtocol(),
      task: taskId,
      profile: calibration.profile,
      requestedAa: calibration.aaRuns,
      pods,
      simSpeed: settings.SIM_SPEED,
      concurrency: settings.GPU_SLOTS,
      createdAt: calibration.createdAt,
      wallSeconds: (now.getTime() - calibration.createdAt.getTime()) / 1000,
      runtime: calibration.runtime === "vllm" ? "vllm" : "sim",
    }) as unknown as Prisma.InputJsonValue;
  } catch (error) {
    logger.warn("a calibration's report could not be built", { calibrationId, error: String(error) });
    const scored = pods.filter((p) => p.pod.record !== null).length;
    failure = `no report could be built from its ${pods.length} evaluations (${scored} came back with a record)`;
  }
  const written = await db().calibration.updateMany({
    where: { id: calibrationId, status: "running" },
    data: { status: "reported", reportedAt: now, failure, ...(report === undefined ? {} : { report }) },
  });
  if (written.count === 0) return "already";
  return failure ? "failed" : "reported";
}

/**
 * After an evaluation ends (its worker's job, an operator's void): the calibration that queued it, if one did, may
 * now be complete. Never throws: the evaluation's own move is done, and the maintenance sweep (reportDueCalibrations)
 * catches what this misses.
 */
export async function reportCalibrationOf(evaluationId: string): Promise<void> {
  try {
    const run = await db().calibrationRun.findUnique({ where: { evaluationId }, select: { calibrationId: true } });
    if (run) await reportCalibration(run.calibrationId);
  } catch (error) {
    logger.warn("a calibration's report is left for the sweep", { evaluationId, error: String(error) });
  }
}

/** Every running calibration whose evaluations are all final gets its report (the maintenance queue's sweep). */
export async function reportDueCalibrations(): Promise<number> {
  const running = await db().calibration.findMany({ where: { status: "running" }, select: { id: true } });
  let reported = 0;
  for (const { id } of running) {
    const state = await reportCalibration(id);
    if (state === "reported" || state === "failed") reported++;
  }
  return reported;
}
