import { z } from "zod";
import { db } from "../db/client";
import { logger } from "../logger";
import { type EventHub, eventHub } from "../queue/event-hub";
import { eventsChannel, type StoredEvent } from "./append-event";

/**
 * What `appendEvent` publishes: the number of the event it just stored, a doorbell and nothing more. Live viewers
 * are sent what PostgreSQL holds, never what Redis carried, so a message forged by anything that reaches Redis can
 * at most make the hub read the log early; it cannot put words, a status or a score on anyone's page.
 */
export const eventNoticeSchema = z.object({ seq: z.number().int().positive().max(2_147_483_647) });

/** Rows read per catch-up; a longer gap is read on the next notice or look. */
const CATCH_UP_ROWS = 500;

/**
 * How often the log is read without a notice. A notice published while Redis restarts, or while the hub's
 * subscription reconnects, reaches nobody; without this a viewer would wait for the next event, and after a final
 * status there is none.
 */
const LOOK_EVERY_MS = 5_000;
const ALL = 2_147_483_647;

/**
 * Calls `onEvent` with each event of the evaluation stored after the moment of listening, in order, as the log holds
 * it. A notice for seq N sends every stored event up to N not yet sent (notices published by different processes can
 * arrive out of order; the row lock in appendEvent means N stored implies every earlier one stored). Resolves to the
 * release function once listening; events stored before that are the caller's to replay.
 */
export async function listenStoredEvents(
  evaluationId: string,
  onEvent: (event: StoredEvent) => void,
  hub: EventHub = eventHub(),
  lookEveryMs: number = LOOK_EVERY_MS,
): Promise<() => Promise<void>> {
  let sent = 0;
  let released = false;
  let ready!: () => void;
  let chain = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const catchUp = async (upTo: number) => {
    if (released || upTo <= sent) return;
    const rows = await db().evaluationEvent.findMany({
      where: { evaluationId, seq: { gt: sent, lte: upTo } },
      orderBy: { seq: "asc" },
      take: CATCH_UP_ROWS,
    });
    for (const row of rows) {
      if (released) return;
      sent = row.seq;
      onEvent({ seq: row.seq, type: row.type, data: row.data, createdAt: row.createdAt.toISOString() });
    }
  };
  const read = (upTo: number) => {
    chain = chain
      .then(() => catchUp(upTo))
      .catch((error: unknown) =>
        logger.warn("live events: reading the log failed", { evaluationId, error: String(error) }),
      );
  };
  const release = await hub.listen(eventsChannel(evaluationId), eventNoticeSchema, ({ seq }) => read(seq));
  try {
    const last = await db().evaluationEvent.findFirst({
      where: { evaluationId },
      orderBy: { seq: "desc" },
      select: { seq: true },
    });
    sent = last?.seq ?? 0;
  } catch (error) {
    await release();
    throw error;
  } finally {
    ready();
  }
  const look = setInterval(() => read(ALL), lookEveryMs);
  look.unref();
  return async () => {
    released = true;
    clearInterval(look);
    await release();
  };
}
