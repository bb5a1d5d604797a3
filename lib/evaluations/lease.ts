import { hostname } from "node:os";
import { db } from "../db/client";
import { env } from "../env";
import { processAlive } from "../pods/local/process-alive";

/** How long a worker's claim on an evaluation lasts without renewal; a dead worker's claim lapses after this. */
const leaseSeconds = () => env().EVALUATION_LEASE_SECONDS;
/** Renewed four times a lease, so a slow tick never lets a live worker's claim lapse. */
export const leaseRenewMs = () => (leaseSeconds() * 1000) / 4;
/**
 * Past this many attempts, an evaluation whose workers keep dying is void (the arena's fault) and refunded, unless
 * its pod still runs for the next attempt to re-attach to: a worker's death then costs nothing of the evaluation.
 */
export const MAX_ATTEMPTS = 3;
/** Past this many, it is void even with its pod still running: a pod whose events kill every worker that follows it. */
export const MAX_ATTEMPTS_REATTACHED = 10;

/**
 * A worker's id: its host, its process and a nonce (a process of a new container may get a dead one's pid), so that
 * a worker of the same host can tell a dead owner's lease from a live one's.
 */
export function workerIdFor(pid: number = process.pid, nonce: string = Math.random().toString(36).slice(2, 8)): string {
  return `${hostname()}:${pid}:${nonce}`;
}

/** Whether the lease's owner is a worker of this host whose process has ended: its lease need not be waited out. */
export function ownerIsDeadHere(owner: string | null, self: string): boolean {
  if (!owner || owner === self) return false;
  const [host, pid, nonce] = owner.split(":");
  const [ownHost, ownPid] = self.split(":");
  if (host !== ownHost || !pid || nonce === undefined) return false;
  // our own pid with another nonce: the owner was an earlier process that had our pid, now gone
  return pid === ownPid || !processAlive(Number(pid));
}

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
    select: { status: true, attempt: true, leaseExpiresAt: true, leaseOwner: true },
  });
  if (!row) return { kind: "over" };
  if (row.status === "scored" || row.status === "failed" || row.status === "void" || row.status === "cancelled") {
    return { kind: "over" };
  }
  if (
    row.status !== "queued" &&
    row.leaseExpiresAt &&
    row.leaseExpiresAt > now &&
    !ownerIsDeadHere(row.leaseOwner, workerId)
  ) {
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

/** Who holds an evaluation now, as one attempt sees it. */
export type Ownership =
  /** this attempt */
  | "ours"
  /** it has ended (scored, failed, void, cancelled) */
  | "over"
  /** another worker took it: a newer attempt */
  | "taken";

/**
 * Extends the lease. A lease that lapsed while the database could not be reached is extended all the same: the
 * lease is lost only when another worker has taken the evaluation (a newer attempt), never by the clock alone.
 */
export async function renewLease(evaluationId: string, attempt: number): Promise<Ownership> {
  const result = await db().evaluation.updateMany({
    where: { id: evaluationId, attempt, status: { in: ["queued", "fetching", "running", "checking"] } },
    data: { leaseExpiresAt: new Date(Date.now() + leaseSeconds() * 1000) },
  });
  return result.count === 1 ? "ours" : ownershipOf(evaluationId, attempt);
}

/** Whether `attempt` still owns the evaluation. */
export async function ownershipOf(evaluationId: string, attempt: number): Promise<Ownership> {
  const row = await db().evaluation.findUnique({
    where: { id: evaluationId },
    select: { status: true, attempt: true },
  });
  if (!row || ["scored", "failed", "void", "cancelled"].includes(row.status)) return "over";
  return row.attempt === attempt ? "ours" : "taken";
}

/**
 * Lets the lease lapse now (a worker shutting down, its pod left running): the next worker takes the evaluation at
 * once, under a new attempt, and re-attaches to the pod.
 */
export async function releaseLease(evaluationId: string, attempt: number): Promise<void> {
  await db().evaluation.updateMany({ where: { id: evaluationId, attempt }, data: { leaseExpiresAt: new Date() } });
}
