import { z } from "zod";
import { env } from "@/lib/env";
import { type EngineRuntime, referenceEngine } from "@/lib/pods/reference-engines/reference-engines";
import { currentProtocol, SPLITS, TASK_IDS, type TaskId } from "@/lib/protocol";
import { runReference } from "./run-reference";

const protocol = currentProtocol();

export const measureReferencesInput = z.object({
  profile: z
    .string()
    .min(1, "profile: is required")
    .refine((p) => protocol.profiles.some((x) => x.name === p), { message: "profile: not a profile of the protocol" }),
  split: z.enum(SPLITS).default("test"),
});

export interface PlannedReference {
  taskId: TaskId;
  referenceKey: string;
  label: string;
}

export interface MeasuredReferences {
  queued: (PlannedReference & { evaluationId: string })[];
  /** References no engine plays on this runtime, with why. */
  skipped: (PlannedReference & { why: string })[];
}

/**
 * The order the references are queued in: task by task in turn, each task's A/A run first, so every board gets
 * its baseline soonest and the boards fill side by side rather than one task after the other.
 */
export function referencePlan(runtime: EngineRuntime): {
  runnable: PlannedReference[];
  skipped: MeasuredReferences["skipped"];
} {
  const perTask = TASK_IDS.map((taskId) => {
    const references = [...protocol.tasks[taskId].references].sort(
      (a, b) => Number(b.key === "stock") - Number(a.key === "stock"),
    );
    return references.map((r) => ({
      taskId,
      referenceKey: r.key,
      label: r.label,
      engine: referenceEngine(runtime, r),
    }));
  });
  const runnable: PlannedReference[] = [];
  const skipped: MeasuredReferences["skipped"] = [];
  const rounds = Math.max(...perTask.map((t) => t.length));
  for (let i = 0; i < rounds; i++) {
    for (const task of perTask) {
      const plan = task[i];
      if (!plan) continue;
      const { engine, ...reference } = plan;
      if (engine.ok) runnable.push(reference);
      else skipped.push({ ...reference, why: engine.why });
    }
  }
  return { runnable, skipped };
}

/**
 * The operators' one action that measures the references: queues every reference of each task that an engine plays
 * on this arena's runtime (protocol section 11, the A/A run included), under the chosen profile, on the reference
 * account, each judged as submissions are. The boards show each as soon as it is scored.
 */
export async function measureReferences(
  input: z.input<typeof measureReferencesInput>,
  options: Parameters<typeof runReference>[1] = {},
): Promise<MeasuredReferences> {
  const { profile, split } = measureReferencesInput.parse(input);
  const runtime = options.runtime ?? env().ENGINE_RUNTIME;
  const { runnable, skipped } = referencePlan(runtime);
  const queued: MeasuredReferences["queued"] = [];
  for (const reference of runnable) {
    const created = await runReference(
      { taskId: reference.taskId, referenceKey: reference.referenceKey, split, profile },
      { ...options, runtime },
    );
    queued.push({ ...reference, evaluationId: created.evaluationId });
  }
  return { queued, skipped };
}
