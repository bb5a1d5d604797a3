import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import { logger } from "../logger";
import { redis } from "../queue/connection";

export const eventsChannel = (evaluationId: string) => `arena:evaluation:${evaluationId}:events`;

export interface StoredEvent {
  seq: number;
  type: string;
  data: unknown;
  createdAt: string;
}

/**
 * Appends an event to the evaluation's log (the next seq, taken under a row lock so concurrent
 * writers never collide) and publishes it for live viewers; the log is what reconnects replay.
 */
export async function appendEvent(
  evaluationId: string,
  type: string,
  data: Prisma.InputJsonValue,
): Promise<StoredEvent> {
  const event = await db().$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Evaluation" WHERE id = ${evaluationId} FOR UPDATE`;
    return appendEventIn(tx, evaluationId, type, data);
  });
  await publishEventNotice(evaluationId, event.seq);
  return event;
}

/** Appends within a transaction that already holds the evaluation's row lock (`SELECT … FOR UPDATE`). */
export async function appendEventIn(
  tx: Prisma.TransactionClient,
  evaluationId: string,
  type: string,
  data: Prisma.InputJsonValue,
): Promise<StoredEvent> {
  const last = await tx.evaluationEvent.findFirst({
    where: { evaluationId },
    orderBy: { seq: "desc" },
    select: { seq: true },
  });
  const row = await tx.evaluationEvent.create({ data: { evaluationId, seq: (last?.seq ?? 0) + 1, type, data } });
  return { seq: row.seq, type: row.type, data: row.data, createdAt: row.createdAt.toISOString() };
}

/** Rings live viewers' doorbell once an event is committed. */
export async function publishEventNotice(evaluationId: string, seq: number): Promise<void> {
  try {
    // a notice only: viewers are sent the stored row (listen-stored-events.ts)
    await redis().publish(eventsChannel(evaluationId), JSON.stringify({ seq }));
  } catch (error) {
    // Viewers that miss a publish catch up from the log on their next read.
    logger.warn("publish failed", { evaluationId, error: String(error) });
  }
}
