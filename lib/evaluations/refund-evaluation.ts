import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";

/**
 * Refunds an evaluation's charge once, inside the caller's transaction: a second refund is a no-op (one ledger row
 * per evaluation and kind). Returns whether this call wrote the refund.
 */
export async function refundIn(tx: Prisma.TransactionClient, evaluationId: string): Promise<boolean> {
  const charge = await tx.budgetLedger.findUnique({ where: { evaluationId_kind: { evaluationId, kind: "charge" } } });
  if (!charge) return false;
  const created = await tx.budgetLedger.createMany({
    data: [
      {
        accountId: charge.accountId,
        taskId: charge.taskId,
        split: charge.split,
        evaluationId,
        kind: "refund",
        amount: -charge.amount,
      },
    ],
    skipDuplicates: true,
  });
  await tx.evaluation.update({ where: { id: evaluationId }, data: { refunded: true } });
  return created.count === 1;
}

/** Refunds an evaluation's charge once; a second refund is a no-op. */
export function refundEvaluation(evaluationId: string): Promise<boolean> {
  return db().$transaction((tx) => refundIn(tx, evaluationId));
}
