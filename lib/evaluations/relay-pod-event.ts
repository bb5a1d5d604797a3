import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import { appendEventIn, publishEventNotice } from "./append-event";
import { isTerminal } from "./status-machine";

/** What one relayed event changes besides the log, written in the same transaction. */
export interface RelayedEffects {
  phase?: string;
  /** The checks began: a running evaluation moves to `checking` (its status event precedes the relayed one). */
  checking?: boolean;
  pass?: {
    engine: string;
    workload: string;
    pass: number;
    row: Omit<Prisma.EvaluationPassUncheckedCreateInput, "evaluationId" | "engine" | "workload" | "pass">;
  };
}

export type RelayOutcome =
  /** Stored, as the log's `seq`. */
  | { kind: "stored"; seq: number }
  /** The pod's sequence says the log holds it already (a replay after a re-attach): nothing written. */
  | { kind: "replayed" }
  /** The evaluation is over, another attempt owns it, or it follows another pod: nothing written. */
  | { kind: "fenced" };

/**
 * Stores one event of the evaluation's pod, exactly once: under the evaluation's row lock, only while this attempt
 * owns the evaluation and follows this pod, and only when the pod's own sequence number (`podSeq`) is past the last
 * one relayed, which it then becomes. The pass row and the phase it carries are written in the same transaction, so
 * a worker killed at any point leaves either all of it or none, and the worker that re-attaches reads on from
 * `podSeq`. An event without a sequence number (a backend's own note) is stored without that check.
 */
export async function relayPodEvent(input: {
  evaluationId: string;
  attempt: number;
  podId: string;
  podSeq: number | undefined;
  type: string;
  data: Prisma.InputJsonValue;
  effects?: RelayedEffects;
}): Promise<RelayOutcome> {
  const { evaluationId } = input;
  const outcome = await db().$transaction(async (tx): Promise<RelayOutcome> => {
    const [row] = await tx.$queryRaw<{ status: string; attempt: number; podId: string | null; podSeq: number }[]>`
      SELECT status, attempt, "podId", "podSeq" FROM "Evaluation" WHERE id = ${evaluationId} FOR UPDATE`;
    if (!row || isTerminal(row.status as never) || row.attempt !== input.attempt || row.podId !== input.podId)
      return { kind: "fenced" };
    if (input.podSeq !== undefined && input.podSeq <= row.podSeq) return { kind: "replayed" };
    const { phase, pass, checking } = input.effects ?? {};
    const moving = checking === true && row.status === "running";
    if (phase !== undefined || input.podSeq !== undefined || moving)
      await tx.evaluation.update({
        where: { id: evaluationId },
        data: {
          ...(phase === undefined ? {} : { phase }),
          ...(input.podSeq === undefined ? {} : { podSeq: input.podSeq }),
          ...(moving ? { status: "checking" as const } : {}),
        },
      });
    if (moving)
      await appendEventIn(tx, evaluationId, "status", { status: "checking", phase: phase ?? null, reason: null });
    if (pass) {
      const key = { evaluationId, engine: pass.engine, workload: pass.workload, pass: pass.pass };
      await tx.evaluationPass.upsert({
        where: { evaluationId_engine_workload_pass: key },
        update: pass.row,
        create: { ...key, ...pass.row },
      });
    }
    const stored = await appendEventIn(tx, evaluationId, input.type, input.data);
    return { kind: "stored", seq: stored.seq };
  });
  if (outcome.kind === "stored") await publishEventNotice(evaluationId, outcome.seq);
  return outcome;
}
