export interface ReceivedEvent {
  id: number | null;
  event: string;
  data: unknown;
}

/**
 * Reads an SSE endpoint over HTTP as a browser's EventSource would, keeping each event's id.
 * Stops when `until` says so, the stream ends, or `signal` aborts.
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
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = response.body.getReader();
    outer: for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let cut = buffer.indexOf("\n\n");
      while (cut !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
        let id: number | null = null;
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) id = Number(line.slice(4));
          else if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        if (data.length === 0) continue;
        const received = { id, event, data: JSON.parse(data.join("\n")) as unknown };
        events.push(received);
        if (options.until?.(received, events)) {
          controller.abort();
          break outer;
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  return { events, ended };
}
