import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import { FetchError } from "../fetch/fetch-errors";
import { logger } from "../logger";
import type { AgentEvent } from "../pods/agent/events";
import type { PodBackend, PodExit } from "../pods/types";
import { getProfile, isTaskId } from "../protocol";
import { appendEvent } from "./append-event";
import { claimEvaluation, leaseRenewMs, MAX_ATTEMPTS, renewLease } from "./lease";
import { advanceEvaluation, moveEvaluation } from "./move-evaluation";
import { podDeadlineSeconds } from "./pod-deadline";
import { publicText } from "./public-reason";
import { recordResult } from "./record-result";
import { poolPathFor, stockEngineDir } from "./runtime";
import { removeSealedInputs, sealInputs } from "./seal-inputs";
import { isTerminal } from "./status-machine";

export type RunOutcome = { kind: "done" } | { kind: "skipped" } | { kind: "retry-later"; afterMs: number };

export interface RunDeps {
  backend: PodBackend;
  workerId: string;
  /** How often the worker looks for a cancel while a pod runs. */
  cancelPollMs?: number;
}

/** Ends an evaluation for the arena's own reason: void and refunded, never charged. */
async function voidEvaluation(evaluationId: string, attempt: number, reason: string): Promise<void> {
  await moveEvaluation(evaluationId, "void", { attempt, reason, refund: true });
}

/**
 * Runs one evaluation from Postgres: claim, fetch and seal, one pod for both engines, relay its events,
 * record the result. Safe to run twice: a second run finds it over, or resumes it under a new attempt.
 */
export async function runEvaluation(evaluationId: string, deps: RunDeps): Promise<RunOutcome> {
  const claim = await claimEvaluation(evaluationId, deps.workerId);
  if (claim.kind === "over") {
    await removeInputsIfOver(evaluationId);
    return { kind: "skipped" };
  }
  if (claim.kind === "busy") return { kind: "retry-later", afterMs: claim.retryInMs };
  const { attempt } = claim;
  const log = (message: string, fields: Record<string, unknown> = {}) =>
    logger.info(message, { evaluationId, attempt, ...fields });

  // Whatever an earlier attempt left running is stopped before this one starts.
  for (const pod of await deps.backend.list()) {
    if (pod.evaluationId === evaluationId && pod.attempt < attempt) await deps.backend.stop(pod.podId);
  }
  if (attempt > MAX_ATTEMPTS) {
    await voidEvaluation(evaluationId, attempt, `the evaluation's worker was lost ${attempt - 1} times`);
    await removeInputsIfOver(evaluationId);
    return { kind: "done" };
  }
  if (claim.resumed)
    await appendEvent(evaluationId, "log", {
      level: "warn",
      message: `resumed as attempt ${attempt} after its worker was lost`,
    });

  let stale = false;
  const lease = setInterval(() => {
    void renewLease(evaluationId, attempt).then((ok) => {
      if (!ok) stale = true;
    });
  }, leaseRenewMs());
  try {
    return await runClaimed(evaluationId, attempt, deps, () => stale, log);
  } finally {
    clearInterval(lease);
    await removeInputsIfOver(evaluationId);
  }
}

/**
 * Deletes the evaluation's sealed inputs once it has ended (scored, failed, void or cancelled), never while another
 * attempt may still run on them.
 */
async function removeInputsIfOver(evaluationId: string): Promise<void> {
  try {
    const row = await db().evaluation.findUnique({ where: { id: evaluationId }, select: { status: true } });
    if (row && isTerminal(row.status)) await removeSealedInputs(evaluationId);
  } catch (error) {
    // logged for the operators, never the job's own failure (a later run of this job deletes them again)
    logger.warn("the sealed inputs could not be deleted", { evaluationId, error: String(error) });
  }
}

async function runClaimed(
  evaluationId: string,
  attempt: number,
  deps: RunDeps,
  isStale: () => boolean,
  log: (message: string, fields?: Record<string, unknown>) => void,
): Promise<RunOutcome> {
  const evaluation = await db().evaluation.findUniqueOrThrow({
    where: { id: evaluationId },
    include: { submission: true },
  });
  const { submission } = evaluation;
  const profile = getProfile(submission.profile);
  if (!isTaskId(submission.taskId) || !profile) {
    await voidEvaluation(
      evaluationId,
      attempt,
      `unknown task or profile (${submission.taskId}, ${submission.profile})`,
    );
    return { kind: "done" };
  }

  if (!(await advanceEvaluation(evaluationId, "fetching", attempt, "fetch"))) return { kind: "done" };
  const started = Date.now();
  let sealed: Awaited<ReturnType<typeof sealInputs>>;
  try {
    sealed = await sealInputs({
      evaluationId,
      attempt,
      taskId: submission.taskId,
      engine:
        submission.engineSource === "inline"
          ? { source: "inline", archive: Buffer.from(submission.engineArchive ?? new Uint8Array()) }
          : {
              source: "repository",
              uri: submission.engineUri ?? "",
              revision: submission.engineRevision ?? "",
              subdir: submission.engineSubdir,
            },
      speculator:
        submission.speculatorUri && submission.speculatorRevision
          ? { uri: submission.speculatorUri, revision: submission.speculatorRevision }
          : null,
    });
  } catch (error) {
    if (error instanceof FetchError && error.fault === "submission") {
      await moveEvaluation(evaluationId, "failed", { attempt, reason: error.message });
    } else {
      // the arena's own failure: its raw words (a file system error names server paths) are for the operators' log
      logger.warn("fetching failed on the arena's side", {
        evaluationId,
        attempt,
        error: String(error),
        ...(error instanceof Error && error.cause !== undefined ? { cause: String(error.cause) } : {}),
      });
      await voidEvaluation(evaluationId, attempt, `fetching failed on the arena's side: ${arenaFailure(error)}`);
    }
    return { kind: "done" };
  }
  await db().evaluation.updateMany({
    where: { id: evaluationId, attempt },
    data: {
      engineSha256: sealed.engineDigest,
      speculatorCommit: sealed.speculatorCommit,
      speculatorSha256: sealed.speculatorDigest,
      speculatorFiles:
        sealed.speculatorFiles.length > 0 ? (sealed.speculatorFiles as unknown as Prisma.InputJsonValue) : undefined,
    },
  });
  await appendEvent(evaluationId, "sealed", {
    engine_sha256: sealed.engineDigest,
    speculator_commit: sealed.speculatorCommit,
    speculator_sha256: sealed.speculatorDigest,
    speculator_files: sealed.speculatorFiles as unknown as Prisma.InputJsonValue,
  });
  let poolPath: string | undefined;
  try {
    poolPath = await poolPathFor(submission.split);
  } catch (error) {
    logger.warn("the test pool could not be prepared", { evaluationId, attempt, error: String(error) });
    await voidEvaluation(evaluationId, attempt, "the test pool could not be prepared on the arena's side");
    return { kind: "done" };
  }
  if (!(await advanceEvaluation(evaluationId, "running", attempt, "starting"))) return { kind: "done" };

  const handle = await deps.backend.start({
    evaluationId,
    attempt,
    taskId: submission.taskId,
    profile: profile.name,
    seed: evaluation.seed,
    engineDir: sealed.engineDir,
    speculatorDir: sealed.speculatorDir,
    targetDir: sealed.targetDir,
    stockEngineDir: stockEngineDir(),
    deadlineSeconds: podDeadlineSeconds(profile),
    ...(poolPath ? { poolPath } : {}),
  });
  await db().evaluation.updateMany({ where: { id: evaluationId, attempt }, data: { podId: handle.podId } });
  log("pod started", { podId: handle.podId });

  let cancelled = false;
  const cancelWatch = setInterval(() => {
    void db()
      .evaluation.findUnique({ where: { id: evaluationId }, select: { status: true, attempt: true } })
      .then((row) => {
        if (!row || isTerminal(row.status) || row.attempt !== attempt || isStale()) {
          cancelled = true;
          void deps.backend.stop(handle.podId);
        }
      });
  }, deps.cancelPollMs ?? 2000);

  let result: Extract<AgentEvent, { type: "result" }> | undefined;
  try {
    for await (const event of handle.events) {
      if (cancelled) break;
      if (event.type === "result") {
        result = event;
        continue;
      }
      await relay(evaluationId, attempt, event);
    }
  } finally {
    clearInterval(cancelWatch);
  }
  const exit: PodExit = cancelled ? { kind: "failed", reason: "pod-lost", message: "stopped" } : await handle.exited;
  await deps.backend.stop(handle.podId);
  const gpuSeconds = (Date.now() - started) / 1000;
  await db().evaluation.updateMany({
    where: { id: evaluationId, attempt },
    data: { gpuSeconds: { increment: gpuSeconds } },
  });

  if (cancelled) {
    log("pod stopped: the evaluation is over or no longer this attempt's");
    return { kind: "done" };
  }
  if (!result) {
    // the backend's message can quote the agent's stderr (stack traces, server paths): the log keeps it
    if (exit.kind === "failed")
      logger.warn("the pod was lost", { evaluationId, attempt, reason: exit.reason, message: exit.message });
    const why = exit.kind === "failed" ? exit.reason : "the pod ended without a result";
    await voidEvaluation(evaluationId, attempt, `the pod was lost (${why})`);
    return { kind: "done" };
  }
  await recordResult(evaluationId, attempt, result);
  return { kind: "done" };
}

async function relay(evaluationId: string, attempt: number, event: AgentEvent): Promise<void> {
  if (event.type === "phase") {
    await db().evaluation.updateMany({ where: { id: evaluationId, attempt }, data: { phase: event.phase } });
    if (event.phase.startsWith("checks"))
      await moveEvaluation(evaluationId, "checking", { attempt, phase: event.phase });
  }
  if (event.type === "pass-ended") {
    const row = {
      engine: event.engine,
      workload: event.workload,
      pass: event.pass,
      speed: event.speed,
      requests: event.requests,
      failed: event.failed,
      outputTokens: event.outputTokens,
      summary: (event.summary ?? {}) as Prisma.InputJsonValue,
    };
    await db().evaluationPass.upsert({
      where: {
        evaluationId_engine_workload_pass: {
          evaluationId,
          engine: event.engine,
          workload: event.workload,
          pass: event.pass,
        },
      },
      update: row,
      create: { evaluationId, ...row },
    });
  }
  const { type, ...data } = event;
  // the agent's words are public on the events stream: no server path in them
  if (event.type === "log") Object.assign(data, { message: publicText(event.message, { evaluationId }) });
  if (event.type === "engine" && event.detail !== undefined)
    Object.assign(data, { detail: publicText(event.detail, { evaluationId }) });
  await appendEvent(evaluationId, type, data as Prisma.InputJsonValue);
}

/** A public word for the arena's own failure: an error's code (ENOSPC, EACCES…), or its kind, never its message. */
function arenaFailure(error: unknown): string {
  if (error instanceof FetchError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code)) return `a file system or system error (${code})`;
  return "an unexpected error (see the worker's log)";
}
