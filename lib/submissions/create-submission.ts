import { randomInt } from "node:crypto";
import { budgetLimit } from "../budgets/budget-limits";
import { usedBudget } from "../budgets/remaining-budget";
import { db } from "../db/client";
import { ArchiveError, inspectEngineArchive } from "../engine-archive/inspect-archive";
import { AppError } from "../http/app-error";
import { zodToAppError } from "../http/error-response";
import { logger } from "../logger";
import { currentProtocol } from "../protocol";
import { enqueueEvaluation } from "../queue/evaluations-queue";
import type { Caller } from "../tokens/authenticate-token";
import { submissionBody } from "./submission-body";

export interface CreatedSubmission {
  id: string;
  evaluationId: string;
  status: "queued";
}

/**
 * Validates a submission, charges the account's budget and stores it with its first evaluation,
 * all in one transaction serialised per (account, task, split); the job is queued only after commit.
 */
export async function createSubmission(
  caller: Pick<Caller, "accountId" | "kind">,
  body: unknown,
  options: { referenceKey?: string; enqueue?: (evaluationId: string) => Promise<void> } = {},
): Promise<CreatedSubmission> {
  const parsed = submissionBody.safeParse(body);
  if (!parsed.success) throw zodToAppError(parsed.error);
  const input = parsed.data;

  let engineArchive: Buffer | null = null;
  let engineSha256: string | null = null;
  if ("inline" in input.engine) {
    const gz = Buffer.from(input.engine.inline, "base64");
    try {
      engineSha256 = (await inspectEngineArchive(gz)).sha256;
    } catch (error) {
      if (error instanceof ArchiveError) {
        throw new AppError({ code: "invalid_request", message: `engine.inline: the archive ${error.message}` });
      }
      throw error;
    }
    engineArchive = gz;
  }

  const protocol = currentProtocol();
  const limit = budgetLimit(caller.kind, input.split);
  const created = await db().$transaction(async (tx) => {
    const lockKey = `${caller.accountId}:${input.task_id}:${input.split}`;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`;
    if (limit !== null) {
      const used = await usedBudget(caller.accountId, input.task_id, input.split, tx);
      if (used >= limit) {
        throw new AppError({
          code: "budget_exhausted",
          message: `budget: ${used} of ${limit} ${input.split} evaluations on ${input.task_id} used`,
        });
      }
    }
    const repo = "inline" in input.engine ? null : input.engine;
    const submission = await tx.submission.create({
      data: {
        accountId: caller.accountId,
        taskId: input.task_id,
        split: input.split,
        protocolVersion: protocol.version,
        profile: input.profile ?? "full",
        speculatorUri: input.speculator?.uri ?? null,
        speculatorRevision: input.speculator?.revision ?? null,
        engineSource: repo ? "repository" : "inline",
        engineArchive: engineArchive ? new Uint8Array(engineArchive) : null,
        engineSha256,
        engineUri: repo?.uri ?? null,
        engineRevision: repo?.revision ?? null,
        engineSubdir: repo?.subdir ?? null,
        method: input.solution.method ?? null,
        kind: input.solution.kind,
        referenceKey: options.referenceKey ?? null,
      },
    });
    const evaluation = await tx.evaluation.create({
      data: { submissionId: submission.id, seed: randomInt(0, 2 ** 31 - 1), engineSha256 },
    });
    await tx.budgetLedger.create({
      data: {
        accountId: caller.accountId,
        taskId: input.task_id,
        split: input.split,
        evaluationId: evaluation.id,
        kind: "charge",
        amount: 1,
      },
    });
    await tx.evaluationEvent.create({
      data: { evaluationId: evaluation.id, seq: 1, type: "status", data: { status: "queued" } },
    });
    return { id: submission.id, evaluationId: evaluation.id };
  });

  const enqueue = options.enqueue ?? enqueueEvaluation;
  try {
    await enqueue(created.evaluationId);
  } catch (error) {
    // The reconciler queues any queued row without a job, so the submission is not lost.
    logger.warn("enqueue failed; the reconciler will queue it", {
      evaluationId: created.evaluationId,
      error: String(error),
    });
  }
  return { ...created, status: "queued" };
}
