/**
 * The one reader of the arena's event stream (`GET /api/submissions/{id}/events`, written by lib/http/sse.ts): the
 * participant's CLI, the local kit and the tests read it through here. Runs in Node and in browsers (fetch and
 * web streams only).
 */

/** One dispatched event. `id` is the id this event carried (null when it had none, as `state` and heartbeats). */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/**
 * The WHATWG event-stream grammar over bytes that arrive in arbitrary chunks: a line, a multi-byte character or a
 * CRLF pair may be split anywhere; lines end with CRLF, LF or CR; a leading BOM is dropped; comments are skipped;
 * `retry` sets the reconnection delay; an `id` holding NUL is ignored; an event is dispatched at a blank line when it
 * has data, and a final event without its blank line is dropped.
 */
export class EventStreamParser {
  /** The last event id seen (what a reconnect sends as Last-Event-ID); "" before any. */
  lastEventId = "";
  /** The server's `retry:` in milliseconds, once it sent one. */
  retryMs: number | null = null;

  private readonly decoder = new TextDecoder("utf-8");
  private line = "";
  private afterCr = false;
  private started = false;
  private data: string[] = [];
  private eventName = "";
  private eventId: string | null = null;

  push(chunk: Uint8Array | string): SseMessage[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (c === 10 && this.afterCr && i === start && this.line === "") {
        // the LF of a CRLF whose CR ended the previous chunk's line
        this.afterCr = false;
        start = i + 1;
        continue;
      }
      this.endLine(this.line + text.slice(start, i), out);
      this.line = "";
      this.afterCr = c === 13;
      if (c === 13 && i + 1 < text.length && text.charCodeAt(i + 1) === 10) {
        i++;
        this.afterCr = false;
      }
      start = i + 1;
    }
    if (start < text.length) {
      this.line += text.slice(start);
      this.afterCr = false;
    }
    return out;
  }

  end(): SseMessage[] {
    const tail = this.decoder.decode();
    return tail ? this.push(tail) : [];
  }

  private endLine(line: string, out: SseMessage[]): void {
    if (line === "") {
      if (this.data.length > 0)
        out.push({ id: this.eventId, event: this.eventName || "message", data: this.data.join("\n") });
      this.data = [];
      this.eventName = "";
      this.eventId = null;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : a comment */) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.eventName = value;
    else if (field === "id" && !value.includes("\0")) {
      this.lastEventId = value;
      this.eventId = value;
    } else if (field === "retry" && /^[0-9]+$/.test(value)) this.retryMs = Number.parseInt(value, 10);
  }
}

/** The stream answered with an HTTP error that a retry will not mend (404, 401…). */
export class SseHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`the event stream answered HTTP ${status}`);
    this.name = "SseHttpError";
  }
}

export interface FollowOptions {
  /** Resume after this id (sent as Last-Event-ID on the first connection too). */
  lastEventId?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Each event, in order; returning "stop" ends the follow after it. */
  onEvent(message: SseMessage): undefined | "stop" | Promise<undefined | "stop">;
  /** The event after which the server closes the stream for good (an evaluation's terminal status). */
  isFinal?(message: SseMessage): boolean;
  /** Called before each reconnection: the stream dropped (or never answered) and is resumed after `lastEventId`. */
  onReconnect?(info: { attempt: number; lastEventId: string; error: string }): void;
  /** Consecutive failed connections (none delivered a numbered event) before giving up. */
  maxAttempts?: number;
  /** Delay before reconnecting when the server set none with `retry:`. */
  retryMs?: number;
  /** A connection silent this long (no event, no heartbeat) is taken as dropped. */
  idleTimeoutMs?: number;
  fetch?: typeof fetch;
}

export interface FollowResult {
  lastEventId: string;
  reconnects: number;
  ended: "final" | "stopped" | "aborted";
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });

/**
 * Follows an event stream to its end as EventSource would, and past what EventSource does: a dropped connection, a
 * server that closed before the final event, a silent socket or a 5xx are resumed with `Last-Event-ID`, so every
 * event arrives once and in order; an HTTP 4xx ends it with SseHttpError.
 */
export async function followEventStream(url: string, options: FollowOptions): Promise<FollowResult> {
  const doFetch = options.fetch ?? fetch;
  const maxAttempts = options.maxAttempts ?? 8;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  let lastEventId = options.lastEventId ?? "";
  let retryMs = options.retryMs ?? 2000;
  let reconnects = 0;
  let failures = 0;

  for (;;) {
    if (options.signal?.aborted) return { lastEventId, reconnects, ended: "aborted" };
    const controller = new AbortController();
    const abort = () => controller.abort();
    options.signal?.addEventListener("abort", abort);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => controller.abort(new Error(`no data for ${idleTimeoutMs} ms`)), idleTimeoutMs);
    };
    let delivered = false;
    let why = "the stream ended before its final event";
    try {
      armIdle();
      const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
      if (lastEventId !== "") headers["last-event-id"] = lastEventId;
      const response = await doFetch(url, { headers, signal: controller.signal, cache: "no-store" });
      if (response.status >= 400 && response.status < 500) {
        throw new SseHttpError(response.status, await response.text().catch(() => ""));
      }
      if (!response.ok || !response.body) {
        why = `HTTP ${response.status}`;
      } else {
        const parser = new EventStreamParser();
        const reader = response.body.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          armIdle();
          const messages = done ? parser.end() : parser.push(value);
          if (parser.retryMs !== null) retryMs = parser.retryMs;
          for (const message of messages) {
            // progress is a numbered event: a connection that only ever opens with the state has not moved on
            if (message.id !== null) {
              lastEventId = message.id;
              delivered = true;
            }
            const verdict = await options.onEvent(message);
            if (verdict === "stop" || options.isFinal?.(message)) {
              controller.abort();
              return { lastEventId, reconnects, ended: verdict === "stop" ? "stopped" : "final" };
            }
          }
          if (done) break;
        }
      }
    } catch (error) {
      if (error instanceof SseHttpError) throw error;
      if (options.signal?.aborted) return { lastEventId, reconnects, ended: "aborted" };
      const reason = controller.signal.aborted ? controller.signal.reason : error;
      why = reason instanceof Error ? reason.message : String(reason);
    } finally {
      if (idle) clearTimeout(idle);
      options.signal?.removeEventListener("abort", abort);
    }
    failures = delivered ? 0 : failures + 1;
    if (failures >= maxAttempts) {
      throw new Error(`the event stream failed ${failures} times in a row (last: ${why})`);
    }
    reconnects += 1;
    options.onReconnect?.({ attempt: reconnects, lastEventId, error: why });
    await sleep(delivered ? Math.min(retryMs, 1000) : retryMs * Math.min(failures, 5), options.signal);
  }
}

/** An event's data as JSON, or null when it is not JSON. */
export function eventJson(message: SseMessage): unknown {
  try {
    return JSON.parse(message.data);
  } catch {
    return null;
  }
}
