import { z } from "zod";
import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import type { AgentEvent } from "../pods/agent/events";
import { moveEvaluation } from "./move-evaluation";

const gateRow = z.object({
  check: z.string(),
  measured: z.union([z.string(), z.number(), z.null()]),
  limit: z.union([z.string(), z.number(), z.null()]),
  pass: z.boolean(),
});

/**
 * Stores the judge's record, the gates table and the score, then ends the evaluation — only if this
 * attempt still owns it. A void ending is the arena's fault and is refunded.
 */
export async function recordResult(
  evaluationId: string,
  attempt: number,
  result: Extract<AgentEvent, { type: "result" }>,
): Promise<boolean> {
  const record = result.record ?? null;
  const score = record && typeof record.score === "number" ? record.score : null;
  const gates = z.array(gateRow).safeParse(record?.gates);
  const owned = await db().$transaction(async (tx) => {
    const updated = await tx.evaluation.updateMany({
      where: { id: evaluationId, attempt, status: { in: ["running", "checking"] } },
      data: {
        result: (record ?? undefined) as Prisma.InputJsonValue | undefined,
        specscore: result.outcome === "scored" ? score : null,
        logTail: result.logTail ?? null,
      },
    });
    if (updated.count === 0) return false;
    if (gates.success) {
      await tx.gateResult.deleteMany({ where: { evaluationId } });
      await tx.gateResult.createMany({
        data: gates.data.map((g) => ({
          evaluationId,
          check: g.check,
          measured: g.measured === null ? "—" : String(g.measured),
          limit: g.limit === null ? "—" : String(g.limit),
          passed: g.pass,
        })),
      });
    }
    return true;
  });
  if (!owned) return false;
  return moveEvaluation(evaluationId, result.outcome, {
    attempt,
    reason: result.reason,
    phase: "done",
    refund: result.outcome === "void",
  });
}
