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

const inFlight = new WeakMap<PrismaClient, Promise<string>>();

/**
 * The boards' version now. Readers who ask while a read of it is under way share that read (it began at most one
 * query's time before they asked); the next reader after it ends starts a new one.
 */
export function boardVersion(client: PrismaClient): Promise<string> {
  const pending = inFlight.get(client);
  if (pending) return pending;
  const read = readVersion(client).finally(() => {
    if (inFlight.get(client) === read) inFlight.delete(client);
  });
  inFlight.set(client, read);
  return read;
}
