import { EventStreamParser } from "../http/sse-reader";

export interface ReceivedEvent {
  id: number | null;
  event: string;
  data: unknown;
}

/**
 * Reads one connection of an SSE endpoint over HTTP as a browser's EventSource would (the arena's one parser,
 * lib/http/sse-reader.ts), keeping each event's id. Stops when `until` says so, the stream ends, or the timeout
 * passes; it never reconnects, so a test sees exactly what one connection carried (followEventStream resumes).
 */
export async function readSse(
  url: string,
  options: {
    lastEventId?: number;
    until?: (event: ReceivedEvent, all: ReceivedEvent[]) => boolean;
    timeoutMs?: number;
  },
): Promise<{ events: ReceivedEvent[]; ended: boolean }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 30_000);
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (options.lastEventId) headers["last-event-id"] = String(options.lastEventId);
  const events: ReceivedEvent[] = [];
  let ended = false;
  try {
    const response = await fetch(url, { headers, signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`SSE ${url} answered ${response.status}`);
    const parser = new EventStreamParser();
    const reader = response.body.getReader();
    outer: for (;;) {
      const { value, done } = await reader.read();
      for (const message of done ? parser.end() : parser.push(value)) {
        const received = {
          id: message.id === null ? null : Number(message.id),
          event: message.event,
          data: JSON.parse(message.data) as unknown,
        };
        events.push(received);
        if (options.until?.(received, events)) {
          controller.abort();
          break outer;
        }
      }
      if (done) {
        ended = true;
        break;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  return { events, ended };
}
