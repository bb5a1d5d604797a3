import { z } from "zod";
import { CURRENT_VERSION, TASK_IDS, type TaskId } from "@/lib/protocol";
import type { BoardEntry } from "./board-entry";
import { listBoard } from "./list-board";

/** `GET /api/board?task=`: which task's board. */
export const boardQuery = z
  .object({
    task: z.enum(TASK_IDS, { message: `must be one of ${TASK_IDS.join(", ")}` }).meta({
      description: "the task whose board to read",
    }),
  })
  .strict();

const ratio = z.number().nullable();

export const boardRowSchema = z
  .object({
    rank: z.number().int().nullable().meta({ description: "null for runs under a test profile, never ranked" }),
    evaluation_id: z.string(),
    submission_id: z.string(),
    account: z.string(),
    account_kind: z.string(),
    split: z.enum(["dev", "test"]),
    profile: z.string(),
    method: z.string().nullable(),
    kind: z.string(),
    speculator: z.object({ uri: z.string(), revision: z.string().nullable() }).nullable(),
    engine_source: z.string(),
    reference_key: z.string().nullable(),
    status: z.string(),
    finished_at: z.string().nullable(),
    specscore: z.number().nullable().meta({ description: "SpecScore: 0 when a gate failed, null when void" }),
    speedup: z.number().nullable().meta({ description: "the geometric mean of the ratios, whatever the gates say" }),
    ratios: z.object({ solo: ratio, team: ratio, busy: ratio }),
    lossless: z.boolean().nullable().meta({ description: "every gate passed; null when no gate was judged" }),
    reason: z.string().nullable(),
    dev_gap: z.object({ test: z.number(), dev: z.number(), drop: z.number() }).nullable(),
  })
  .strict();

export const publicBoardSchema = z
  .object({
    task_id: z.enum(TASK_IDS),
    protocol_version: z.string(),
    participants: z
      .array(boardRowSchema)
      .meta({ description: "each participant's last scored test evaluation, ranked" }),
    references: z.array(boardRowSchema).meta({ description: "the reference speculators, measured as submissions are" }),
    profiled: z.array(boardRowSchema).meta({ description: "recent runs under test profiles: labelled, never ranked" }),
  })
  .strict();

export type BoardRow = z.infer<typeof boardRowSchema>;
export type PublicBoard = z.infer<typeof publicBoardSchema>;

function row(entry: BoardEntry & { rank?: number }): BoardRow {
  const w = entry.result?.workloads;
  return {
    rank: entry.rank ?? null,
    evaluation_id: entry.evaluationId,
    submission_id: entry.submissionId,
    account: entry.account,
    account_kind: entry.accountKind,
    split: entry.split,
    profile: entry.profile,
    method: entry.method,
    kind: entry.kind,
    speculator: entry.speculator,
    engine_source: entry.engine.source,
    reference_key: entry.referenceKey,
    status: entry.status,
    finished_at: entry.finishedAt,
    specscore: entry.result?.score ?? null,
    speedup: entry.result?.speedup ?? null,
    ratios: { solo: w?.solo.ratio ?? null, team: w?.team.ratio ?? null, busy: w?.busy.ratio ?? null },
    lossless: entry.result?.lossless ?? null,
    reason: entry.result?.reason ?? null,
    dev_gap: entry.devGap,
  };
}

/** A task's board as the API serves it: the home page's rows, as plain JSON, for clients and scripts. */
export async function publicBoard(taskId: TaskId): Promise<PublicBoard> {
  const board = await listBoard(taskId);
  return {
    task_id: taskId,
    protocol_version: CURRENT_VERSION,
    participants: board.participants.map(row),
    references: board.references.map(row),
    profiled: board.profiled.map(row),
  };
}
