import { z } from "zod";
import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import type { AgentEvent } from "../pods/agent/events";
import { moveEvaluation } from "./move-evaluation";
import { resultEnding } from "./result-ending";

const gateRow = z.object({
  check: z.string(),
  measured: z.union([z.string(), z.number(), z.null()]),
  limit: z.union([z.string(), z.number(), z.null()]),
  pass: z.boolean(),
});

/** The pod cannot know what the worker sealed: the record names the engine and speculator as sealed. */
async function withSealedInputs(
  evaluationId: string,
  record: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const sealed = await db().evaluation.findUnique({
    where: { id: evaluationId },
    select: { engineSha256: true, speculatorCommit: true, speculatorSha256: true },
  });
  const reproducibility = z.record(z.string(), z.unknown()).safeParse(record.reproducibility);
  if (!sealed || !reproducibility.success) return record;
  return {
    ...record,
    reproducibility: {
      ...reproducibility.data,
      engine_archive_sha256: sealed.engineSha256 || null,
      speculator_commit: sealed.speculatorCommit,
      speculator_sha256: sealed.speculatorSha256,
    },
  };
}

/**
 * Stores the judge's record, the gates table and the score, then ends the evaluation — only if this
 * attempt still owns it. How it ends is `resultEnding`'s: a measurement is scored (0 with its reason when a gate
 * failed, the candidate did not start or died), a void ending is the arena's fault and is refunded.
 */
export async function recordResult(
  evaluationId: string,
  attempt: number,
  result: Extract<AgentEvent, { type: "result" }>,
): Promise<boolean> {
  const record = result.record ? await withSealedInputs(evaluationId, result.record) : null;
  const ending = resultEnding(result);
  const gates = z.array(gateRow).safeParse(record?.gates);
  const owned = await db().$transaction(async (tx) => {
    const updated = await tx.evaluation.updateMany({
      where: { id: evaluationId, attempt, status: { in: ["running", "checking"] } },
      data: {
        result: (record ?? undefined) as Prisma.InputJsonValue | undefined,
        specscore: ending.specscore,
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
  return moveEvaluation(evaluationId, ending.status, {
    attempt,
    reason: ending.reason,
    phase: "done",
    refund: ending.refund,
  });
}
