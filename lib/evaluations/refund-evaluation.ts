import { db } from "../db/client";

/** Refunds an evaluation's charge once; a second refund is a no-op (one ledger row per evaluation and kind). */
export async function refundEvaluation(evaluationId: string): Promise<boolean> {
  const charge = await db().budgetLedger.findUnique({ where: { evaluationId_kind: { evaluationId, kind: "charge" } } });
  if (!charge) return false;
  const created = await db().budgetLedger.createMany({
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
  await db().evaluation.update({ where: { id: evaluationId }, data: { refunded: true } });
  return created.count === 1;
}
