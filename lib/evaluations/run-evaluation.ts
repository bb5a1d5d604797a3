import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import { FetchError } from "../fetch/fetch-errors";
import { logger } from "../logger";
import type { AgentEvent } from "../pods/agent/events";
import type { PodBackend, PodEvent, PodExit, PodHandle, PodInfo } from "../pods/types";
import { getProfile, isTaskId } from "../protocol";
import { appendEvent } from "./append-event";
import {
  claimEvaluation,
  leaseRenewMs,
  MAX_ATTEMPTS,
  MAX_ATTEMPTS_REATTACHED,
  type Ownership,
  ownershipOf,
  releaseLease,
  renewLease,
} from "./lease";
import { advanceEvaluation, moveEvaluation } from "./move-evaluation";
import { podDeadlineSeconds } from "./pod-deadline";
import { publicText } from "./public-reason";
import { recordResult } from "./record-result";
import { type RelayedEffects, type RelayOutcome, relayPodEvent } from "./relay-pod-event";
import { poolPathFor, stockEngineDir } from "./runtime";
import { removeSealedInputs, sealInputs } from "./seal-inputs";
import { isTerminal } from "./status-machine";
import { throughBlips } from "./through-blips";

export type RunOutcome = { kind: "done" } | { kind: "skipped" } | { kind: "retry-later"; afterMs: number };

export interface RunDeps {
  backend: PodBackend;
  workerId: string;
  /** How often the worker looks for a cancel (or another worker's takeover) while a pod runs. */
  cancelPollMs?: number;
  /**
   * How many pods the backend's device holds at once (GPU_SLOTS), where pods of this host share it (the local
   * backend): a new evaluation waits while live pods of others fill them, a pod whose worker died included.
   */
  slots?: number;
  /** Aborted when the worker shuts down: a run detaches from its pod (left running) and lets its lease lapse. */
  shutdown?: AbortSignal;
}

/** How soon a job that found no free slot, or whose worker is shutting down, looks again. */
const SLOT_RETRY_MS = 5_000;
const SHUTDOWN_RETRY_MS = 1_000;

type Log = (message: string, fields?: Record<string, unknown>) => void;

/** Ends an evaluation for the arena's own reason: void and refunded, never charged. */
async function voidEvaluation(evaluationId: string, attempt: number, reason: string): Promise<void> {
  await moveEvaluation(evaluationId, "void", { attempt, reason, refund: true });
}

/**
 * Runs one evaluation from Postgres: claim, fetch and seal, one pod for both engines, relay its events,
 * record the result. Safe to run twice: a second run finds it over, re-attaches to its pod where that still runs
 * (its passes go on, none replayed), or starts it again under a new attempt where nothing of it is left.
 */
export async function runEvaluation(evaluationId: string, deps: RunDeps): Promise<RunOutcome> {
  if (deps.slots !== undefined && (await slotsFull(evaluationId, deps.backend, deps.slots)))
    return { kind: "retry-later", afterMs: SLOT_RETRY_MS };
  const claim = await claimEvaluation(evaluationId, deps.workerId);
  if (claim.kind === "over") {
    await removeInputsIfOver(evaluationId);
    return { kind: "skipped" };
  }
  if (claim.kind === "busy") return { kind: "retry-later", afterMs: claim.retryInMs };
  const { attempt } = claim;
  const log: Log = (message, fields = {}) => logger.info(message, { evaluationId, attempt, ...fields });

  // The pod an earlier attempt left running is this attempt's to re-attach to; any other is stopped.
  const row = await db().evaluation.findUniqueOrThrow({
    where: { id: evaluationId },
    select: { status: true, podId: true, podSeq: true },
  });
  const pods = await deps.backend.list();
  const adoptable: PodInfo | undefined =
    claim.resumed && row.podId && (row.status === "running" || row.status === "checking")
      ? pods.find((pod) => pod.podId === row.podId && pod.evaluationId === evaluationId)
      : undefined;
  for (const pod of pods) {
    if (pod.evaluationId === evaluationId && pod.attempt < attempt && pod.podId !== adoptable?.podId)
      await deps.backend.stop(pod.podId);
  }
  if (attempt > MAX_ATTEMPTS_REATTACHED || (attempt > MAX_ATTEMPTS && !adoptable)) {
    if (adoptable) await deps.backend.stop(adoptable.podId);
    await voidEvaluation(evaluationId, attempt, `the evaluation's worker was lost ${attempt - 1} times`);
    await removeInputsIfOver(evaluationId);
    return { kind: "done" };
  }

  const lease = watchLease(evaluationId, attempt, log);
  try {
    if (adoptable) {
      const handle = await deps.backend.attach(adoptable.podId, row.podSeq);
      if (handle) {
        await throughBlips("noting the re-attach", () =>
          appendEvent(evaluationId, "log", {
            level: "warn",
            message: `attempt ${attempt} re-attached to the evaluation's pod after its worker was lost: its passes go on`,
          }),
        );
        log("re-attached to the pod", { podId: handle.podId, afterSeq: row.podSeq });
        return await followPod({ evaluationId, attempt, deps, handle, lease, log, started: Date.now() });
      }
      await deps.backend.stop(adoptable.podId);
    }
    if (claim.resumed)
      await appendEvent(evaluationId, "log", {
        level: "warn",
        message: `resumed as attempt ${attempt} after its worker was lost`,
      });
    return await runClaimed(evaluationId, attempt, deps, lease, log);
  } catch (error) {
    // the next run need not wait out this attempt's lease (best effort: the database may be what failed)
    await releaseLease(evaluationId, attempt).catch(() => undefined);
    throw error;
  } finally {
    lease.stop();
    await removeInputsIfOver(evaluationId);
  }
}

/** Whether live pods of other evaluations fill the backend's slots (one left by a dead worker counts). */
async function slotsFull(evaluationId: string, backend: PodBackend, slots: number): Promise<boolean> {
  const row = await db().evaluation.findUnique({ where: { id: evaluationId }, select: { status: true } });
  if (row?.status !== "queued") return false;
  const live = (await backend.list()).filter((pod) => pod.evaluationId !== evaluationId && pod.phase === "running");
  return live.length >= slots;
}

interface LeaseWatch {
  /** Set once the lease's renewal found the evaluation over or taken by another attempt. */
  readonly lost: Ownership | null;
  onLost(listener: (why: Exclude<Ownership, "ours">) => void): void;
  stop(): void;
}

/**
 * Renews the lease every quarter of it. A renewal that fails because the database cannot be reached is logged and
 * tried again on the next tick: the lease is lost only when another worker has taken the evaluation, or it is over.
 */
function watchLease(evaluationId: string, attempt: number, log: Log): LeaseWatch {
  let lost: Exclude<Ownership, "ours"> | null = null;
  const listeners: ((why: Exclude<Ownership, "ours">) => void)[] = [];
  let failing = false;
  const timer = setInterval(() => {
    void renewLease(evaluationId, attempt).then(
      (ownership) => {
        if (failing) log("the lease is renewed again");
        failing = false;
        if (ownership !== "ours" && !lost) {
          lost = ownership;
          for (const listener of listeners) listener(ownership);
        }
      },
      (error: unknown) => {
        if (!failing)
          logger.warn("the lease could not be renewed: trying again", {
            evaluationId,
            attempt,
            error: String(error).slice(0, 300),
          });
        failing = true;
      },
    );
  }, leaseRenewMs());
  return {
    get lost() {
      return lost;
    },
    onLost(listener) {
      listeners.push(listener);
    },
    stop: () => clearInterval(timer),
  };
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
  lease: LeaseWatch,
  log: Log,
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
  // from here the pod runs whatever happens to this worker or the database: every write waits out an outage
  await throughBlips(
    "recording the pod",
    () =>
      db().evaluation.updateMany({ where: { id: evaluationId, attempt }, data: { podId: handle.podId, podSeq: 0 } }),
    { fields: { evaluationId, attempt } },
  );
  log("pod started", { podId: handle.podId });
  return followPod({ evaluationId, attempt, deps, handle, lease, log, started });
}

/**
 * Relays a pod's events until it ends, then records its result. While the pod runs nothing here throws: a write
 * that cannot reach the database waits for it (the pod goes on, its events wait in its file), and the run stops
 * following the pod only when the evaluation is over (the pod is stopped: a cancel), another worker has taken it
 * (the pod is left to that worker), or this worker shuts down (the pod is left to the next one).
 */
async function followPod(input: {
  evaluationId: string;
  attempt: number;
  deps: RunDeps;
  handle: PodHandle;
  lease: LeaseWatch;
  log: Log;
  started: number;
}): Promise<RunOutcome> {
  const { evaluationId, attempt, deps, handle, lease, log } = input;
  const fields = { evaluationId, attempt, podId: handle.podId };
  let ended: "over" | "taken" | "shutdown" | null = null;
  const stopFollowing = (why: "over" | "taken" | "shutdown") => {
    if (ended) return;
    ended = why;
    if (why === "over")
      void deps.backend
        .stop(handle.podId)
        .catch((error: unknown) => logger.warn("the pod could not be stopped", { ...fields, error: String(error) }));
    else handle.detach();
  };
  lease.onLost(stopFollowing);
  if (lease.lost && lease.lost !== "ours") stopFollowing(lease.lost);
  const onShutdown = () => stopFollowing("shutdown");
  deps.shutdown?.addEventListener("abort", onShutdown);
  if (deps.shutdown?.aborted) onShutdown();
  // a cancel is seen within a poll; a poll the database does not answer is skipped
  const cancelWatch = setInterval(() => {
    void ownershipOf(evaluationId, attempt).then(
      (ownership) => {
        if (ownership !== "ours") stopFollowing(ownership);
      },
      () => undefined,
    );
  }, deps.cancelPollMs ?? 2000);

  let result: Extract<AgentEvent, { type: "result" }> | undefined;
  try {
    for await (const event of handle.events) {
      if (ended) break;
      if (event.type === "result") {
        result = event;
        continue;
      }
      const relayed = await throughBlips("relaying an event", () => relay(evaluationId, attempt, handle.podId, event), {
        abandoned: () => ended !== null,
        fields,
      }).catch((error: unknown) => {
        // a refused write (a bug, or an event the database cannot hold): this event is dropped, the run goes on
        logger.error("an event of the pod could not be stored", { ...fields, type: event.type, error: String(error) });
        return undefined;
      });
      if (relayed?.kind === "fenced") {
        const ownership = await throughBlips("checking who owns the evaluation", () =>
          ownershipOf(evaluationId, attempt),
        );
        stopFollowing(ownership === "over" ? "over" : "taken");
      }
    }
  } finally {
    clearInterval(cancelWatch);
    deps.shutdown?.removeEventListener("abort", onShutdown);
  }
  const why = ended as "over" | "taken" | "shutdown" | null;
  if (why === "taken") {
    log("another worker took the evaluation: its pod is left to it", { podId: handle.podId });
    return { kind: "done" };
  }
  if (why === "shutdown") {
    await releaseLease(evaluationId, attempt).catch(() => undefined);
    log("the worker is shutting down: the pod is left running for the next one", { podId: handle.podId });
    return { kind: "retry-later", afterMs: SHUTDOWN_RETRY_MS };
  }
  const exit: PodExit =
    why === "over" ? { kind: "failed", reason: "pod-lost", message: "stopped" } : await handle.exited;
  await deps.backend
    .stop(handle.podId)
    .catch((error: unknown) => logger.warn("the pod could not be stopped", { ...fields, error: String(error) }));
  const gpuSeconds = (Date.now() - input.started) / 1000;
  await throughBlips(
    "recording the GPU time",
    () =>
      db().evaluation.updateMany({
        where: { id: evaluationId, attempt },
        data: { gpuSeconds: { increment: gpuSeconds } },
      }),
    { fields },
  );

  if (why === "over") {
    log("pod stopped: the evaluation is over");
    return { kind: "done" };
  }
  if (!result) {
    // the backend's message can quote the agent's stderr (stack traces, server paths): the log keeps it
    if (exit.kind === "failed")
      logger.warn("the pod was lost", { evaluationId, attempt, reason: exit.reason, message: exit.message });
    const reason = exit.kind === "failed" ? exit.reason : "the pod ended without a result";
    await throughBlips("voiding the evaluation", () =>
      voidEvaluation(evaluationId, attempt, `the pod was lost (${reason})`),
    );
    return { kind: "done" };
  }
  const final = result;
  await throughBlips("recording the result", () => recordResult(evaluationId, attempt, final), { fields });
  return { kind: "done" };
}

/** One pod event into the evaluation's log, with the pass row, phase and status it carries, exactly once. */
async function relay(evaluationId: string, attempt: number, podId: string, event: PodEvent): Promise<RelayOutcome> {
  const { type, seq, ...data } = event;
  const effects: RelayedEffects = {};
  if (event.type === "phase") {
    effects.phase = event.phase;
    if (event.phase.startsWith("checks")) effects.checking = true;
  }
  if (event.type === "pass-ended") {
    effects.pass = {
      engine: event.engine,
      workload: event.workload,
      pass: event.pass,
      row: {
        speed: event.speed,
        requests: event.requests,
        failed: event.failed,
        outputTokens: event.outputTokens,
        summary: (event.summary ?? {}) as Prisma.InputJsonValue,
      },
    };
  }
  // the agent's words are public on the events stream: no server path in them
  if (event.type === "log") Object.assign(data, { message: publicText(event.message, { evaluationId }) });
  if (event.type === "engine" && event.detail !== undefined)
    Object.assign(data, { detail: publicText(event.detail, { evaluationId }) });
  return relayPodEvent({
    evaluationId,
    attempt,
    podId,
    podSeq: seq,
    type,
    data: data as Prisma.InputJsonValue,
    effects,
  });
}

/** A public word for the arena's own failure: an error's code (ENOSPC, EACCES…), or its kind, never its message. */
function arenaFailure(error: unknown): string {
  if (error instanceof FetchError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code)) return `a file system or system error (${code})`;
  return "an unexpected error (see the worker's log)";
}
