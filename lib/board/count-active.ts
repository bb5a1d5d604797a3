import { db } from "@/lib/db/client";
import { ACTIVE_STATUSES } from "@/lib/evaluations/status-machine";

/** How many evaluations are queued or running: while any are, the boards may change at any moment. */
export function countActiveEvaluations(): Promise<number> {
  return db().evaluation.count({ where: { status: { in: [...ACTIVE_STATUSES] } } });
}
