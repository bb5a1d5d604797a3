import { Queue } from "bullmq";
import type { Redis } from "ioredis";

export const MAINTENANCE_QUEUE = "maintenance";
/** The repeatable schedule of the upkeep job (reconcile the queue with PostgreSQL, sweep orphan pods). */
export const RECONCILE_SCHEDULER = "reconcile";

export function maintenanceQueue(connection: Redis, prefix: string): Queue {
  return new Queue(MAINTENANCE_QUEUE, { connection, prefix });
}

/**
 * Creates the upkeep's repeatable schedule when Redis does not hold it (first start, or Redis restarted without its
 * data), or when its period changed; true when it was missing. The schedule lives in Redis only, so the worker's own
 * timer calls this: a schedule cannot re-create itself.
 */
export async function ensureReconcileSchedule(queue: Queue, everyMs: number): Promise<boolean> {
  const existing = await queue.getJobScheduler(RECONCILE_SCHEDULER);
  if (existing?.every === everyMs) return false;
  await queue.upsertJobScheduler(
    RECONCILE_SCHEDULER,
    { every: everyMs },
    { name: "reconcile", opts: { removeOnComplete: true, removeOnFail: 50 } },
  );
  return existing === undefined;
}
