import { z } from "zod";

export const EVALUATIONS_QUEUE = "evaluations";

/** A job carries the evaluation's id only; Postgres holds everything else. */
export const evaluationJobSchema = z.object({ evaluationId: z.string().min(1) }).strict();
export type EvaluationJob = z.infer<typeof evaluationJobSchema>;
