import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import type { EvaluationStatus } from "../db/generated/enums";
import { AppError } from "../http/app-error";
import { appendEvent } from "./append-event";
import { publicReason } from "./public-reason";
import { refundIn } from "./refund-evaluation";
import { isTerminal, predecessorsOf } from "./status-machine";

export interface MoveOptions {
  /** The writer's attempt; a write from any other attempt is refused. Omit only for moves no worker owns (cancel of a queued row). */
  attempt?: number;
  phase?: string | null;
  reason?: string | null;
  data?: Omit<Prisma.EvaluationUpdateManyMutationInput, "status" | "attempt">;
  /** Refund the charge in the same transaction as the move: nobody ever reads the arena's fault as charged. */
  refund?: boolean;
}

/**
 * Moves an evaluation forward, atomically: the row must be in a state that may precede `to`
 * and, when given, at the writer's attempt. Returns false when the move is refused.
 */
export async function moveEvaluation(
  evaluationId: string,
  to: EvaluationStatus,
  options: MoveOptions = {},
): Promise<boolean> {
  const now = new Date();
  // the one place a reason is stored and published: no server path leaves it
  const reason = options.reason === undefined ? undefined : publicReason(options.reason, { evaluationId, to });
  const moved = await db().$transaction(async (tx) => {
    const result = await tx.evaluation.updateMany({
      where: {
        id: evaluationId,
        status: { in: predecessorsOf(to) },
        ...(options.attempt === undefined ? {} : { attempt: options.attempt }),
      },
      data: {
        ...options.data,
        status: to,
        ...(options.phase === undefined ? {} : { phase: options.phase }),
        ...(reason === undefined ? {} : { reason }),
        ...(isTerminal(to) ? { finishedAt: now, leaseOwner: null, leaseExpiresAt: null } : {}),
      },
    });
    if (result.count === 0) return false;
    if (options.refund) await refundIn(tx, evaluationId);
    return true;
  });
  if (!moved) return false;
  await appendEvent(evaluationId, "status", {
    status: to,
    phase: options.phase ?? null,
    reason: reason ?? null,
  });
  return true;
}

/** Like moveEvaluation, but a refused move is an error (for callers that own the evaluation). */
export async function mustMoveEvaluation(evaluationId: string, to: EvaluationStatus, options: MoveOptions = {}) {
  if (!(await moveEvaluation(evaluationId, to, options))) {
    throw new AppError({
      code: "conflict",
      message: `evaluation ${evaluationId} cannot move to ${to} from its state or attempt`,
    });
  }
}

/**
 * Brings an evaluation to at least `to` for this attempt: moves it forward when it is behind (a fresh run),
 * keeps it where it is when a resumed attempt finds it already there or past. False when it is over or no
 * longer this attempt's.
 */
export async function advanceEvaluation(
  evaluationId: string,
  to: "fetching" | "running" | "checking",
  attempt: number,
  phase: string,
): Promise<boolean> {
  if (await moveEvaluation(evaluationId, to, { attempt, phase })) return true;
  const kept = await db().evaluation.updateMany({
    where: { id: evaluationId, attempt, status: { in: ["fetching", "running", "checking"] } },
    data: { phase },
  });
  return kept.count === 1;
}
