import { db } from "../db/client";
import { AppError } from "../http/app-error";
import { moveEvaluation } from "./move-evaluation";
import { refundEvaluation } from "./refund-evaluation";

/**
 * Cancels a submission's live evaluation on its owner's word. A queued one is refunded (it used no GPU);
 * a running one is charged, and its worker tears the pod down when it sees the state.
 */
export async function cancelEvaluation(
  submissionId: string,
  accountId: string,
): Promise<{ status: string; refunded: boolean }> {
  const submission = await db().submission.findUnique({
    where: { id: submissionId },
    select: { accountId: true, evaluations: { orderBy: { queuedAt: "desc" }, take: 1 } },
  });
  if (!submission) throw new AppError({ code: "not_found", message: `submission ${submissionId} not found` });
  if (submission.accountId !== accountId) {
    throw new AppError({ code: "forbidden", message: "only the submitting account may cancel its evaluation" });
  }
  const evaluation = submission.evaluations[0];
  if (!evaluation) throw new AppError({ code: "not_found", message: "this submission has no evaluation" });
  const wasQueued = evaluation.status === "queued";
  const moved = await moveEvaluation(evaluation.id, "cancelled", { reason: "cancelled by the submitter" });
  if (!moved) {
    throw new AppError({
      code: "conflict",
      message: `the evaluation is already ${evaluation.status}; nothing to cancel`,
    });
  }
  const refunded = wasQueued ? await refundEvaluation(evaluation.id) : false;
  return { status: "cancelled", refunded };
}
