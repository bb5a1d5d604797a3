import qwen3_8b_v1 from "./calibration/v1/qwen3-8b.json";
import { type CalibrationReport, calibrationReportSchema } from "./calibration-schema";
import { TASK_IDS, type TaskId } from "./types";

/** Each task's calibration report under one protocol version; null where none has been run. */
export type Calibrations = Record<TaskId, CalibrationReport | null>;

/**
 * The committed calibration reports (`npm run calibrate` writes them to calibration/v<version>/<task>.json), imported
 * so that the standalone server carries them. A report for another task or version is one more import here.
 */
const COMMITTED: Record<string, Partial<Record<TaskId, unknown>>> = {
  "1": { "qwen3-8b": qwen3_8b_v1 },
};

/** Validates each report and that it is the one its slot names: a report filed under the wrong key is an error. */
export function parseCalibrations(version: string, raw: Partial<Record<TaskId, unknown>>): Calibrations {
  const out = {} as Calibrations;
  for (const task of TASK_IDS) {
    const json = raw[task];
    if (json === undefined) {
      out[task] = null;
      continue;
    }
    const report = calibrationReportSchema.parse(json);
    if (report.protocol_version !== version || report.task !== task)
      throw new Error(
        `the calibration report filed as v${version}/${task} is for v${report.protocol_version}/${report.task}`,
      );
    out[task] = report;
  }
  return out;
}

const parsed = new Map<string, Calibrations>();

/** The committed reports of a protocol version, validated once. */
export function calibrationsFor(version: string): Calibrations {
  let found = parsed.get(version);
  if (!found) {
    found = parseCalibrations(version, COMMITTED[version] ?? {});
    parsed.set(version, found);
  }
  return found;
}

/** A protocol version as it is served: its values, and beside them the calibration reports that are their evidence. */
export function publishedProtocol<P extends { version: string }>(
  protocol: P,
  calibrations: Calibrations = calibrationsFor(protocol.version),
): P & { calibration: Calibrations } {
  return { ...protocol, calibration: calibrations };
}
