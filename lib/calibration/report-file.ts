import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type CalibrationReport, calibrationReportSchema } from "../protocol/calibration-schema";

/** Where the protocol loads a version's report for a task from (lib/protocol/calibrations.ts imports it). */
export function calibrationFile(version: string, task: string): string {
  return fileURLToPath(new URL(`../protocol/calibration/v${version}/${task}.json`, import.meta.url));
}

/** A report file read back and validated by the schema the protocol serves it with. */
export async function readCalibrationReport(path: string): Promise<CalibrationReport> {
  return calibrationReportSchema.parse(JSON.parse(await readFile(path, "utf8")));
}

/**
 * Formats a written report as the repository's formatter does, so that a committed report passes `biome check`
 * (JSON.stringify puts every array element on a line of its own).
 */
export async function formatReportFile(path: string): Promise<void> {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  // biome formats files of its own project only, and only those can be committed.
  if (!resolve(path).startsWith(root)) return;
  const biome = fileURLToPath(new URL("../../node_modules/.bin/biome", import.meta.url));
  await promisify(execFile)(biome, ["format", "--write", path]);
}
