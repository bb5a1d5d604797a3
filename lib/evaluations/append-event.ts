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
  const row = await db().$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Evaluation" WHERE id = ${evaluationId} FOR UPDATE`;
    const last = await tx.evaluationEvent.findFirst({
      where: { evaluationId },
      orderBy: { seq: "desc" },
      select: { seq: true },
    });
    return tx.evaluationEvent.create({ data: { evaluationId, seq: (last?.seq ?? 0) + 1, type, data } });
  });
  const event: StoredEvent = { seq: row.seq, type: row.type, data: row.data, createdAt: row.createdAt.toISOString() };
  try {
    // a notice only: viewers are sent the stored row (listen-stored-events.ts)
    await redis().publish(eventsChannel(evaluationId), JSON.stringify({ seq: event.seq }));
  } catch (error) {
    // Viewers that miss a publish catch up from the log on their next read.
    logger.warn("publish failed", { evaluationId, error: String(error) });
  }
  return event;
}
