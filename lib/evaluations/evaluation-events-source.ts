import { db } from "../db/client";
import { AppError } from "../http/app-error";
import type { SseEvent, SseSource } from "../http/sse";
import { getSubmission, type SubmissionView } from "../submissions/get-submission";
import { listenQueueStanding } from "./listen-queue-standing";
import { liveEventFanout, storedEventToSse } from "./live-event-fanout";

const FINAL = new Set(["scored", "failed", "void", "cancelled"]);

const statesInFlight = new Map<string, Promise<SseEvent>>();

/**
 * The submission's public view as a state event. Viewers who ask while it is being read share that read (begun at
 * most one query's time before they asked) and, being one object, its serialisation: a crowd that reconnects at once
 * costs a few reads, not one each.
 */
function stateEvent(submissionId: string): Promise<SseEvent> {
  const pending = statesInFlight.get(submissionId);
  if (pending) return pending;
  const read = getSubmission(submissionId).then((view): SseEvent => ({ event: "state", data: view }));
  statesInFlight.set(submissionId, read);
  const forget = () => {
    if (statesInFlight.get(submissionId) === read) statesInFlight.delete(submissionId);
  };
  read.then(forget, forget);
  return read;
}

/** The SSE source of a submission's latest evaluation: its view, its stored log, and its live events. */
export async function evaluationEventsSource(submissionId: string): Promise<SseSource> {
  const view = (await stateEvent(submissionId)).data as SubmissionView;
  if (!view.evaluation) throw new AppError({ code: "not_found", message: "this submission has no evaluation" });
  const evaluationId = view.evaluation.id;
  return {
    initial: () => stateEvent(submissionId),
    async replay(afterId) {
      const rows = await db().evaluationEvent.findMany({
        where: { evaluationId, seq: { gt: afterId } },
        orderBy: { seq: "asc" },
      });
      return rows.map((r) =>
        storedEventToSse({ seq: r.seq, type: r.type, data: r.data, createdAt: r.createdAt.toISOString() }),
      );
    },
    // live events come from the log, never from what Redis carried (listen-stored-events.ts says why), read once per
    // process and shared by its viewers; while it waits, its place in the queue and the wait, each time the queue
    // moves (no id: a reconnect gets the current one)
    async subscribe(onEvent) {
      const releaseEvents = await liveEventFanout().join(evaluationId, onEvent);
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
