import { db } from "../db/client";
import { AppError } from "../http/app-error";
import type { SseEvent, SseSource } from "../http/sse";
import { getSubmission } from "../submissions/get-submission";
import type { StoredEvent } from "./append-event";
import { listenQueueStanding } from "./listen-queue-standing";
import { listenStoredEvents } from "./listen-stored-events";

const FINAL = new Set(["scored", "failed", "void", "cancelled"]);

/** The SSE source of a submission's latest evaluation: its view, its stored log, and its live events. */
export async function evaluationEventsSource(submissionId: string): Promise<SseSource> {
  const view = await getSubmission(submissionId);
  if (!view.evaluation) throw new AppError({ code: "not_found", message: "this submission has no evaluation" });
  const evaluationId = view.evaluation.id;
  const toSse = (e: StoredEvent): SseEvent => ({
    id: e.seq,
    event: e.type,
    data: { ...(e.data as object), at: e.createdAt },
  });
  return {
    initial: async () => ({ event: "state", data: await getSubmission(submissionId) }),
    async replay(afterId) {
      const rows = await db().evaluationEvent.findMany({
        where: { evaluationId, seq: { gt: afterId } },
        orderBy: { seq: "asc" },
      });
      return rows.map((r) => toSse({ seq: r.seq, type: r.type, data: r.data, createdAt: r.createdAt.toISOString() }));
    },
    // live events come from the log, never from what Redis carried (listen-stored-events.ts says why); while it
    // waits, its place in the queue and the wait, each time the queue moves (no id: a reconnect gets the current one)
    async subscribe(onEvent) {
      const releaseEvents = await listenStoredEvents(evaluationId, (event) => onEvent(toSse(event)));
      if (view.evaluation?.status !== "queued") return releaseEvents;
      const releaseQueue = await listenQueueStanding(evaluationId, (standing) =>
        onEvent({ event: "queue", data: standing }),
      ).catch(async (error: unknown) => {
        await releaseEvents();
        throw error;
      });
      return async () => {
        await releaseQueue();
        await releaseEvents();
      };
    },
    isFinal: (event) => event.event === "status" && FINAL.has(String((event.data as { status?: string }).status)),
  };
}
