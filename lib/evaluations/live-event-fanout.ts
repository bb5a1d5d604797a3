import type { SseEvent } from "../http/sse";
import { logger } from "../logger";
import type { StoredEvent } from "./append-event";
import { listenStoredEvents } from "./listen-stored-events";

type Viewer = (event: SseEvent) => void;
type Listen = typeof listenStoredEvents;

interface Feed {
  viewers: Set<Viewer>;
  listening: Promise<() => Promise<void>>;
}

export function storedEventToSse(e: StoredEvent): SseEvent {
  return { id: e.seq, event: e.type, data: { ...(e.data as object), at: e.createdAt } };
}

/**
 * Every live viewer of an evaluation in this process shares one reader of its log: a notice is read from PostgreSQL
 * once, and each stored event becomes one SseEvent object handed to every viewer (sseResponse serialises an event
 * once however many streams send it). Without this each viewer read the log on every notice: a thousand viewers, a
 * thousand queries an event. The reader starts with the first viewer and stops when the last one leaves.
 */
export class LiveEventFanout {
  private readonly feeds = new Map<string, Feed>();

  constructor(private readonly listen: Listen = listenStoredEvents) {}

  /** Calls `onEvent` with each event stored after the moment of joining, in order; resolves to the leave function. */
  async join(evaluationId: string, onEvent: Viewer): Promise<() => Promise<void>> {
    let feed = this.feeds.get(evaluationId);
    if (!feed) {
      const viewers = new Set<Viewer>();
      const started: Feed = {
        viewers,
        listening: this.listen(evaluationId, (stored) => {
          const event = storedEventToSse(stored);
          for (const viewer of viewers) {
            try {
              viewer(event);
            } catch (error) {
              logger.error("live events: a viewer threw", { evaluationId, error: String(error) });
            }
          }
        }),
      };
      feed = started;
      this.feeds.set(evaluationId, started);
      started.listening.catch(() => {
        if (this.feeds.get(evaluationId) === started) this.feeds.delete(evaluationId);
      });
    }
    const joined = feed;
    joined.viewers.add(onEvent);
    try {
      await joined.listening;
    } catch (error) {
      joined.viewers.delete(onEvent);
      throw error;
    }
    let left = false;
    return async () => {
      if (left) return;
      left = true;
      joined.viewers.delete(onEvent);
      if (joined.viewers.size > 0 || this.feeds.get(evaluationId) !== joined) return;
      // a viewer who comes after this starts a feed of its own
      this.feeds.delete(evaluationId);
      await (await joined.listening)();
    };
  }

  /** Evaluations with a feed open, and their viewers. */
  viewerCounts(): Map<string, number> {
    return new Map([...this.feeds].map(([id, feed]) => [id, feed.viewers.size]));
  }
}

const globalForFanout = globalThis as unknown as { arenaLiveEventFanout?: LiveEventFanout };

/** The process's fanout. */
export function liveEventFanout(): LiveEventFanout {
  globalForFanout.arenaLiveEventFanout ??= new LiveEventFanout();
  return globalForFanout.arenaLiveEventFanout;
}
