/** One server-sent event. `id` is what a reconnecting client sends back as Last-Event-ID. */
export interface SseEvent {
  id?: number;
  event: string;
  data: unknown;
}

export interface SseSource {
  /** The current state, sent first on every connection. */
  initial(): Promise<SseEvent>;
  /** Stored events after `afterId`, in order. */
  replay(afterId: number): Promise<SseEvent[]>;
  /** Live events; resolves to the release function once listening. */
  subscribe(onEvent: (event: SseEvent) => void): Promise<() => Promise<void>>;
  /** True once nothing more will come (the stream then ends after what is pending). */
  isFinal(event: SseEvent): boolean;
}

export const HEARTBEAT_MS = 15_000;

export function formatSse(event: SseEvent): string {
  const lines = [];
  if (event.id !== undefined) lines.push(`id: ${event.id}`);
  lines.push(`event: ${event.event}`);
  for (const line of JSON.stringify(event.data).split("\n")) lines.push(`data: ${line}`);
  return `${lines.join("\n")}\n\n`;
}

const encoder = new TextEncoder();
const encoded = new WeakMap<SseEvent, Uint8Array>();

/**
 * An event's bytes on the wire, made once per event object: a live event fanned out to every viewer of a process is
 * one object (lib/evaluations/live-event-fanout.ts), so a thousand streams share one JSON.stringify and one buffer.
 */
export function encodeSse(event: SseEvent): Uint8Array {
  let bytes = encoded.get(event);
  if (!bytes) {
    bytes = encoder.encode(formatSse(event));
    encoded.set(event, bytes);
  }
  return bytes;
}

/** The id a reconnecting client asks to resume after: the Last-Event-ID header, or `?lastEventId=`. */
export function lastEventId(request: Request): number {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId");
  const n = raw === null ? 0 : Number.parseInt(raw, 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * The arena's one SSE stream: current state first, then every stored event after the client's
 * Last-Event-ID, then live ones, deduplicated by id, with heartbeats, released when the client leaves.
 */
export function sseResponse(request: Request, source: SseSource, heartbeatMs = HEARTBEAT_MS): Response {
  let release: (() => Promise<void>) | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let lastSent = lastEventId(request);
      const pending: SseEvent[] = [];
      let replaying = true;

      const close = async () => {
        if (closed) return;
        closed = true;
        if (heartbeat) clearInterval(heartbeat);
        const r = release;
        release = undefined;
        if (r) await r().catch(() => undefined);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      const send = (event: SseEvent) => {
        if (closed) return;
        if (event.id !== undefined) {
          if (event.id <= lastSent) return;
          lastSent = event.id;
        }
        controller.enqueue(encodeSse(event));
        if (source.isFinal(event)) void close();
      };
      request.signal.addEventListener("abort", () => void close());

      // Listen before replaying, so nothing published in between is lost; duplicates drop by id.
      release = await source.subscribe((event) => {
        if (replaying) pending.push(event);
        else send(event);
      });
      if (closed) {
        await release();
        return;
      }
      controller.enqueue(encoder.encode("retry: 2000\n\n"));
      send(await source.initial());
      for (const event of await source.replay(lastSent)) send(event);
      replaying = false;
      for (const event of pending.sort((a, b) => (a.id ?? 0) - (b.id ?? 0))) send(event);
      heartbeat = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(`: heartbeat ${Date.now()}\n\n`));
      }, heartbeatMs);
    },
    async cancel() {
      closed = true;
      if (heartbeat) clearInterval(heartbeat);
      const r = release;
      release = undefined;
      if (r) await r().catch(() => undefined);
    },
  });

  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
