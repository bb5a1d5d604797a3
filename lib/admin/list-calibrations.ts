import { db } from "@/lib/db/client";
import { isTerminal } from "@/lib/evaluations/status-machine";
import { AppError } from "@/lib/http/app-error";
import { type CalibrationReport, calibrationReportSchema } from "@/lib/protocol/calibration-schema";

export interface CalibrationListing {
  id: string;
  taskId: string;
  profile: string;
  split: string;
  aaRuns: number;
  runtime: string;
  createdAt: Date;
  reportedAt: Date | null;
  /** Its evaluations that are final, of all it queued. */
  finished: number;
  total: number;
  /** Each evaluation it queued, in order. */
  runs: { evaluationId: string; group: string; referenceKey: string; status: string }[];
  /** The report's headline, once there is one. */
  headline: {
    aaErrorMean: number | null;
    aaErrorMax: number | null;
    gatesPassed: boolean;
    references: { key: string; specscore: number | null }[];
  } | null;
  failure: string | null;
}

/** The newest calibrations, for the operators' page: how far each has come and, once reported, its headline. */
export async function listCalibrations(limit = 20): Promise<CalibrationListing[]> {
  const rows = await db().calibration.findMany({
    orderBy: { createdAt: "desc" },
    take: limit,
    include: {
      runs: {
        orderBy: { position: "asc" },
        select: { evaluationId: true, group: true, referenceKey: true, evaluation: { select: { status: true } } },
      },
    },
  });
  return rows.map((c) => {
    const parsed = c.report === null ? null : calibrationReportSchema.safeParse(c.report);
    const report = parsed?.success ? parsed.data : null;
    return {
      id: c.id,
      taskId: c.taskId,
      profile: c.profile,
      split: c.split,
      aaRuns: c.aaRuns,
      runtime: c.runtime,
      createdAt: c.createdAt,
      reportedAt: c.reportedAt,
      finished: c.runs.filter((r) => isTerminal(r.evaluation.status)).length,
      total: c.runs.length,
      runs: c.runs.map((r) => ({
        evaluationId: r.evaluationId,
        group: r.group,
        referenceKey: r.referenceKey,
        status: r.evaluation.status,
      })),
      headline: report
        ? {
            aaErrorMean: report.aa.specscore_error?.mean ?? null,
            aaErrorMax: report.aa.specscore_error?.max ?? null,
            gatesPassed: [...report.aa.runs, ...report.references].every((r) => r.failed_gates.length === 0),
            references: report.references.map((r) => ({ key: r.key, specscore: r.specscore })),
          }
        : null,
      failure: c.failure,
    };
  });
}

/** A calibration's stored report; null while it runs or when none could be built. */
export async function getCalibrationReport(id: string): Promise<CalibrationReport | null> {
  const row = await db().calibration.findUnique({ where: { id }, select: { report: true } });
  if (!row) throw new AppError({ code: "not_found", message: `no calibration ${id}` });
  return row.report === null ? null : calibrationReportSchema.parse(row.report);
}
