import { z } from "zod";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { type EngineRuntime, referenceEngine } from "@/lib/pods/reference-engines/reference-engines";
import { currentProtocol, getTask, isTaskId, SPLITS, type TaskId } from "@/lib/protocol";
import { reportCalibration } from "./report-calibration";
import { runReference } from "./run-reference";

const protocol = currentProtocol();

/** More A/A runs than this hold the GPU slots for days under the full profile: a typing slip, not a plan. */
export const MAX_AA_RUNS = 12;

export const startCalibrationInput = z.object({
  taskId: z.string().refine(isTaskId, { message: "task: not a task of the protocol in force" }),
  profile: z
    .string()
    .min(1, "profile: is required")
    .refine((p) => protocol.profiles.some((x) => x.name === p), { message: "profile: not a profile of the protocol" }),
  aa: z.coerce
    .number({ message: "A/A runs: a number" })
    .int("A/A runs: a whole number")
    .min(2, "A/A runs: at least 2 (the A/A spread needs two)")
    .max(MAX_AA_RUNS, `A/A runs: at most ${MAX_AA_RUNS}`),
  split: z.enum(SPLITS).default("test"),
});

export interface CalibrationPlanItem {
  group: "aa" | "reference";
  referenceKey: string;
}

/**
 * What a calibration queues (protocol section 10): the A/A runs first, then every other reference of the task an
 * engine plays on this runtime; the references no engine plays here are listed with why.
 */
export function calibrationPlan(
  taskId: TaskId,
  aa: number,
  runtime: EngineRuntime,
): { runs: CalibrationPlanItem[]; skipped: { referenceKey: string; why: string }[] } {
  const runs: CalibrationPlanItem[] = Array.from({ length: aa }, () => ({ group: "aa", referenceKey: "stock" }));
  const skipped: { referenceKey: string; why: string }[] = [];
  for (const reference of getTask(taskId).references) {
    if (reference.key === "stock") continue;
    const engine = referenceEngine(runtime, reference);
    if (engine.ok) runs.push({ group: "reference", referenceKey: reference.key });
    else skipped.push({ referenceKey: reference.key, why: engine.why });
  }
  return { runs, skipped };
}

export interface StartedCalibration {
  calibrationId: string;
  queued: number;
  skipped: { referenceKey: string; why: string }[];
}

/**
 * The operators' calibration: N A/A evaluations and every reference of a task under one profile, each queued on
 * the reference account and judged as any evaluation is. Its report is built from their records once the last is
 * final (report-calibration.ts), kept with the calibration and served to the operators.
 */
export async function startCalibration(
  input: z.input<typeof startCalibrationInput>,
  options: Parameters<typeof runReference>[1] & { startedById?: string } = {},
): Promise<StartedCalibration> {
  const { taskId, profile, aa, split } = startCalibrationInput.parse(input);
  const runtime = options.runtime ?? env().ENGINE_RUNTIME;
  const plan = calibrationPlan(taskId as TaskId, aa, runtime);
  const calibration = await db().calibration.create({
    data: { taskId, profile, split, aaRuns: aa, runtime, startedById: options.startedById ?? null },
  });
  for (const [position, run] of plan.runs.entries()) {
    const created = await runReference(
      { taskId, referenceKey: run.referenceKey, split, profile },
      { root: options.root, runtime, enqueue: options.enqueue },
    );
    await db().calibrationRun.create({
      data: {
        calibrationId: calibration.id,
        evaluationId: created.evaluationId,
        group: run.group,
        referenceKey: run.referenceKey,
        position,
      },
    });
  }
  // an evaluation may have ended (refused at once, say) before its run row was written
  await reportCalibration(calibration.id);
  return { calibrationId: calibration.id, queued: plan.runs.length, skipped: plan.skipped };
}
