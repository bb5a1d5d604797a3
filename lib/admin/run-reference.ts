import { access } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { packDirectory } from "@/lib/engine-archive/pack-directory";
import { env } from "@/lib/env";
import { AppError } from "@/lib/http/app-error";
import { type EngineRuntime, referenceEngine } from "@/lib/pods/reference-engines/reference-engines";
import { currentProtocol, getTask, isTaskId, SPLITS } from "@/lib/protocol";
import { type CreatedSubmission, createSubmission } from "@/lib/submissions/create-submission";

const protocol = currentProtocol();

export const runReferenceInput = z.object({
  taskId: z.string().refine(isTaskId, { message: "task: not a task of the protocol in force" }),
  /** A reference of the task (protocol section 11); "stock" is the A/A run. */
  referenceKey: z.string().min(1, "reference: is required"),
  split: z.enum(SPLITS).default("test"),
  profile: z
    .string()
    .default("full")
    .refine((p) => protocol.profiles.some((x) => x.name === p), { message: "profile: not a profile of the protocol" }),
});

/**
 * Queues a reference (or A/A) evaluation: a submission on the `reference` account with the engine directory that
 * plays it on the arena's runtime (the simulated engine's mode for its kind, or its vLLM engine with its pinned
 * checkpoint) packed as an inline archive, judged like any other and shown on the reference board.
 */
export async function runReference(
  input: z.input<typeof runReferenceInput>,
  options: {
    /** Where the engine directories are found (the checkout, by default). */
    root?: string;
    /** The runtime whose engines play it (the arena's ENGINE_RUNTIME, by default). */
    runtime?: EngineRuntime;
    enqueue?: (evaluationId: string) => Promise<void>;
  } = {},
): Promise<CreatedSubmission & { referenceKey: string }> {
  const { taskId, referenceKey, split, profile } = runReferenceInput.parse(input);
  if (!isTaskId(taskId)) throw new AppError({ code: "invalid_request", message: `task: ${taskId} is not a task` });
  const reference = getTask(taskId).references.find((r) => r.key === referenceKey);
  if (!reference) {
    throw new AppError({
      code: "invalid_request",
      message: `reference: ${referenceKey} is not a reference of ${taskId}`,
    });
  }
  const runtime = options.runtime ?? env().ENGINE_RUNTIME;
  const engine = referenceEngine(runtime, reference);
  if (!engine.ok) {
    throw new AppError({
      code: "conflict",
      message: `reference: ${referenceKey} cannot run on ${runtime}: ${engine.why}`,
    });
  }
  const account = await db().account.findUnique({ where: { name: "reference" } });
  if (account?.kind !== "reference") {
    throw new AppError({ code: "conflict", message: 'the "reference" account is missing: run the seed' });
  }
  // The engine directories are read at run time from the checkout; the web bundle must not trace the project for them.
  const dir = path.join(/*turbopackIgnore: true*/ options.root ?? process.cwd(), engine.engineDir);
  try {
    await access(path.join(/*turbopackIgnore: true*/ dir, "launch.sh"));
  } catch {
    throw new AppError({ code: "conflict", message: `the engine directory ${dir} has no launch.sh` });
  }
  const archive = await packDirectory(dir);
  const created = await createSubmission(
    { accountId: account.id, kind: "reference" },
    {
      task_id: taskId,
      split,
      engine: { inline: archive.toString("base64") },
      ...(engine.speculator ? { speculator: engine.speculator } : {}),
      solution: { method: reference.label, kind: reference.kind },
      profile,
    },
    { referenceKey: reference.key, enqueue: options.enqueue },
  );
  return { ...created, referenceKey: reference.key };
}

/** The A/A run: the stock engine judged against itself. */
export function runAA(
  input: { taskId: string; split?: "dev" | "test"; profile?: string },
  options?: Parameters<typeof runReference>[1],
) {
  return runReference({ ...input, referenceKey: "stock" }, options);
}
