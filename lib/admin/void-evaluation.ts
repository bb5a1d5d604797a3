import { z } from "zod";
import { db } from "@/lib/db/client";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { refundEvaluation } from "@/lib/evaluations/refund-evaluation";
import { AppError } from "@/lib/http/app-error";
import { reportCalibrationOf } from "./report-calibration";

export const voidInput = z.object({
  evaluationId: z.string().trim().min(1, "evaluation: is required"),
  reason: z.string().trim().min(3, "reason: say why, in a few words").max(300, "reason: at most 300 characters"),
});

export interface VoidOutcome {
  evaluationId: string;
  status: "void";
  refunded: boolean;
}

/**
 * Voids an evaluation and refunds its budget charge. The move is the decisive write (it only succeeds from a
 * state that may precede `void`); the refund (lib/evaluations/refund-evaluation) is one ledger row unique per
 * evaluation and kind, so calling again after a crash between the two completes the refund and never refunds twice.
 */
export async function voidEvaluation(input: z.input<typeof voidInput>): Promise<VoidOutcome> {
  const { evaluationId, reason } = voidInput.parse(input);
  const evaluation = await db().evaluation.findUnique({ where: { id: evaluationId }, select: { status: true } });
  if (!evaluation) throw new AppError({ code: "not_found", message: `evaluation ${evaluationId} not found` });
  if (evaluation.status !== "void") {
    const moved = await moveEvaluation(evaluationId, "void", { reason, refund: true });
    if (!moved) {
      const now = await db().evaluation.findUnique({ where: { id: evaluationId }, select: { status: true } });
      if (now?.status !== "void") {
        throw new AppError({
          code: "conflict",
          message: `evaluation ${evaluationId} is ${now?.status ?? "gone"}: a finished evaluation cannot be voided`,
        });
      }
    }
  }
  await refundEvaluation(evaluationId);
  const refunded = await db().budgetLedger.count({ where: { evaluationId, kind: "refund" } });
  await reportCalibrationOf(evaluationId);
  return { evaluationId, status: "void", refunded: refunded > 0 };
}
