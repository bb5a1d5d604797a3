import { db } from "../db/client";
import { env } from "../env";

/** How long a worker's claim on an evaluation lasts without renewal; a dead worker's claim lapses after this. */
const leaseSeconds = () => env().EVALUATION_LEASE_SECONDS;
/** Renewed four times a lease, so a slow tick never lets a live worker's claim lapse. */
export const leaseRenewMs = () => (leaseSeconds() * 1000) / 4;
/** Past this many attempts, an evaluation whose workers keep dying is void (the arena's fault) and refunded. */
export const MAX_ATTEMPTS = 3;

export type Claim =
  | { kind: "claimed"; attempt: number; resumed: boolean }
  | { kind: "busy"; retryInMs: number }
  | { kind: "over" };

/**
 * Takes an evaluation for this worker: a queued one, or an active one whose lease lapsed (its worker died).
 * Each claim increments the attempt, the fencing token every later write carries.
 */
export async function claimEvaluation(evaluationId: string, workerId: string): Promise<Claim> {
  const now = new Date();
  const row = await db().evaluation.findUnique({
    where: { id: evaluationId },
    select: { status: true, attempt: true, leaseExpiresAt: true },
  });
  if (!row) return { kind: "over" };
  if (row.status === "scored" || row.status === "failed" || row.status === "void" || row.status === "cancelled") {
    return { kind: "over" };
  }
  if (row.status !== "queued" && row.leaseExpiresAt && row.leaseExpiresAt > now) {
    return { kind: "busy", retryInMs: row.leaseExpiresAt.getTime() - now.getTime() + 1000 };
  }
  const updated = await db().evaluation.updateMany({
    where: { id: evaluationId, attempt: row.attempt, status: row.status },
    data: {
      attempt: { increment: 1 },
      leaseOwner: workerId,
      leaseExpiresAt: new Date(now.getTime() + leaseSeconds() * 1000),
      ...(row.status === "queued" ? { startedAt: now } : {}),
    },
  });
  if (updated.count === 0) return { kind: "busy", retryInMs: 1000 };
  return { kind: "claimed", attempt: row.attempt + 1, resumed: row.status !== "queued" };
}

/** Extends the lease; false when this attempt no longer owns the evaluation (a newer attempt, or it is over). */
export async function renewLease(evaluationId: string, attempt: number): Promise<boolean> {
  const result = await db().evaluation.updateMany({
    where: { id: evaluationId, attempt, status: { in: ["queued", "fetching", "running", "checking"] } },
    data: { leaseExpiresAt: new Date(Date.now() + leaseSeconds() * 1000) },
  });
  return result.count === 1;
}
