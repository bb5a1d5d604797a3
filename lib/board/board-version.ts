import type { PrismaClient } from "@/lib/db/generated/client";

/**
 * What the boards show changes only when an evaluation is scored: `scored` is a final state, a scored evaluation's
 * record and score are written before it gets there, and accounts and submissions are never edited. The number of
 * scored evaluations and the last time one of them was written name the boards' state; a new score changes both
 * (the count even where the workers' clocks disagree). One index-only scan of Evaluation(status, updatedAt).
 */
async function readVersion(client: PrismaClient): Promise<string> {
  const [row] = await client.$queryRaw<{ scored: number; latest: Date | null }[]>`
    SELECT count(*)::int AS scored, max("updatedAt") AS latest FROM "Evaluation" WHERE status = 'scored'`;
  return `${row?.scored ?? 0}@${row?.latest?.getTime() ?? 0}`;
}

/**
 * What the lists of evaluations show (the newest, how many are active) changes whenever any evaluation is queued or
 * moved: per status, how many there are and the last write. A move changes two statuses' counts whatever the
 * workers' clocks; a write within a status (a phase) changes its last write. Rows are never deleted.
 */
async function readActivity(client: PrismaClient): Promise<string> {
  const rows = await client.$queryRaw<{ status: string; n: number; latest: Date | null }[]>`
    SELECT status::text AS status, count(*)::int AS n, max("updatedAt") AS latest
    FROM "Evaluation" GROUP BY status ORDER BY status`;
  return rows.map((r) => `${r.status}:${r.n}@${r.latest?.getTime() ?? 0}`).join(",");
}

/**
 * Readers who ask while a read of a version is under way share that read (it began at most one query's time before
 * they asked); the next reader after it ends starts a new one.
 */
function shared(read: (client: PrismaClient) => Promise<string>): (client: PrismaClient) => Promise<string> {
  const inFlight = new WeakMap<PrismaClient, Promise<string>>();
  return (client) => {
    const pending = inFlight.get(client);
    if (pending) return pending;
    const reading = read(client).finally(() => {
      if (inFlight.get(client) === reading) inFlight.delete(client);
    });
    inFlight.set(client, reading);
    return reading;
  };
}

/** The boards' version now (a new score changes it). */
export const boardVersion = shared(readVersion);

/** The evaluations' version now (any evaluation queued or moved changes it). */
export const activityVersion = shared(readActivity);
