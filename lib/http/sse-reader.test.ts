import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startDroppingProxy } from "../testing/dropping-proxy";
import { serveHandler } from "../testing/serve-handler";
import { type SseEvent, type SseSource, sseResponse } from "./sse";
import { EventStreamParser, followEventStream, SseHttpError, type SseMessage } from "./sse-reader";

const encoder = new TextEncoder();

function parseInChunks(text: string, size: number): SseMessage[] {
  const bytes = encoder.encode(text);
  const parser = new EventStreamParser();
  const out: SseMessage[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...parser.push(bytes.subarray(i, i + size)));
  out.push(...parser.end());
  return out;
}

describe("EventStreamParser", () => {
  const stream = [
    "\uFEFFretry: 1500\n\n",
    ": heartbeat 1\n\n",
    'id: 1\nevent: status\ndata: {"status":"queued"}\n\n',
    'event: state\r\ndata: {"a":\r\ndata: "ünïcode ✓"}\r\n\r\n',
    "id: 2\revent: pass-ended\rdata: 1\r\r",
    "data\n\n",
    "id: bad\u0000id\ndata: x\n\n",
    "id: 3\ndata: never dispatched",
  ].join("");

  it("reads the grammar whatever the chunks: ids, retry, comments, CRLF, CR, BOM, multi-line data", () => {
    const whole = parseInChunks(stream, 1 << 20);
    expect(whole).toEqual([
      { id: "1", event: "status", data: '{"status":"queued"}' },
      { id: null, event: "state", data: '{"a":\n"ünïcode ✓"}' },
      { id: "2", event: "pass-ended", data: "1" },
      { id: null, event: "message", data: "" },
      { id: null, event: "message", data: "x" },
    ]);
    for (const size of [1, 2, 3, 7, 13]) expect(parseInChunks(stream, size)).toEqual(whole);
  });

  it("keeps the last id and the server's retry for the next connection", () => {
    const parser = new EventStreamParser();
    parser.push("retry: 1500\n\nid: 7\ndata: a\n\ndata: b\n\n");
    expect(parser.retryMs).toBe(1500);
    expect(parser.lastEventId).toBe("7");
  });
});

/**
 * A live evaluation-like source: events appear one by one from its first viewer's arrival (so a slow start cannot
 * let them all pile up before anyone listens), stored for replay and pushed to listeners.
 */
function liveSource(count: number, everyMs: number) {
  const stored: SseEvent[] = [];
  const listeners = new Set<(e: SseEvent) => void>();
  let next = 1;
  let timer: ReturnType<typeof setInterval> | undefined;
  const start = () => {
    timer ??= setInterval(tick, everyMs);
  };
  const tick = () => {
    if (next > count) return clearInterval(timer);
    const event: SseEvent =
      next === count
        ? { id: next, event: "status", data: { status: "scored" } }
        : { id: next, event: "pass-ended", data: { pass: next } };
    next += 1;
    stored.push(event);
    for (const l of listeners) l(event);
  };
  const source: SseSource = {
    initial: async () => ({ event: "state", data: { status: "running" } }),
    replay: async (after) => stored.filter((e) => (e.id ?? 0) > after),
    subscribe: async (onEvent) => {
      listeners.add(onEvent);
      start();
      return async () => void listeners.delete(onEvent);
    },
    isFinal: (e) => e.event === "status",
  };
  return { source, stop: () => clearInterval(timer) };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("followEventStream", () => {
  it("resumes a dropped stream with Last-Event-ID: every event once, in order, to the final one", async () => {
    const live = liveSource(12, 25);
    cleanups.push(live.stop);
    const server = await serveHandler(async (request) => sseResponse(request, live.source));
    cleanups.push(server.close);
    const proxy = await startDroppingProxy(server.url, {
      cut: (stream) => stream.lastEventId === null,
      cutWhen: (text) => (text.match(/^id: /gm) ?? []).length >= 3,
    });
    cleanups.push(proxy.close);

    const seen: SseMessage[] = [];
    const reconnects: string[] = [];
    const result = await followEventStream(`${proxy.url}/api/submissions/s/events`, {
      onEvent: (m) => void seen.push(m),
      isFinal: (m) => m.event === "status",
      onReconnect: (info) => reconnects.push(info.lastEventId),
    });

    expect(result.ended).toBe("final");
    expect(result.reconnects).toBe(1);
    const ids = seen.filter((m) => m.id !== null).map((m) => Number(m.id));
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    // the cut lost what was in flight; the second connection asked for what followed the last id the client had
    expect(proxy.streams.map((s) => [s.lastEventId, s.dropped])).toEqual([
      [null, true],
      [reconnects[0], false],
    ]);
    expect(Number(reconnects[0])).toBeGreaterThanOrEqual(1);
    expect(Number(reconnects[0])).toBeLessThan(12);
    // each connection opens with the current state
    expect(seen.filter((m) => m.event === "state")).toHaveLength(2);
  });

  it("ends with the HTTP status when the stream is refused (4xx), without retrying", async () => {
    let calls = 0;
    const server = await serveHandler(async () => {
      calls += 1;
      return Response.json({ error: { code: "not_found", message: "submission x not found" } }, { status: 404 });
    });
    cleanups.push(server.close);
    const error = await followEventStream(`${server.url}/events`, { onEvent: () => undefined }).catch((e) => e);
    expect(error).toBeInstanceOf(SseHttpError);
    expect((error as SseHttpError).status).toBe(404);
    expect((error as SseHttpError).body).toContain("not found");
    expect(calls).toBe(1);
  });

  it("gives up after the given number of connections that delivered nothing", async () => {
    // a port that was listening and no longer is: connections are refused
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const attempts: number[] = [];
    const error = await followEventStream(`http://127.0.0.1:${port}/events`, {
      onEvent: () => undefined,
      onReconnect: (info) => attempts.push(info.attempt),
      maxAttempts: 3,
      retryMs: 5,
    }).catch((e) => e);
    expect(String(error)).toMatch(/failed 3 times in a row/);
    expect(attempts).toEqual([1, 2]);
  });

  it("takes a silent connection as dropped and resumes it", async () => {
    const live = liveSource(3, 10);
    cleanups.push(live.stop);
    let first = true;
    const server = await serveHandler(async (request) => {
      if (first) {
        first = false;
        // answers, sends the state, then nothing at all (no heartbeat)
        return new Response(
          new ReadableStream({ start: (c) => c.enqueue(encoder.encode('event: state\ndata: {"a":1}\n\n')) }),
          { headers: { "content-type": "text/event-stream" } },
        );
      }
      return sseResponse(request, live.source);
    });
    cleanups.push(server.close);
    const seen: SseMessage[] = [];
    const result = await followEventStream(`${server.url}/events`, {
      onEvent: (m) => void seen.push(m),
      isFinal: (m) => m.event === "status",
      idleTimeoutMs: 300,
      retryMs: 10,
    });
    expect(result).toMatchObject({ ended: "final", reconnects: 1, lastEventId: "3" });
    expect(seen.filter((m) => m.id !== null).map((m) => m.id)).toEqual(["1", "2", "3"]);
  });
});
