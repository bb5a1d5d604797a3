import type { AddressInfo } from "node:net";
import { createServer, type Socket } from "node:net";

/** What the server does for one request: the first chunk `ttftMs` after the request's bytes arrived, then each gap. */
export interface WireReply {
  ttftMs: number;
  chunks: { text: string; gapMs: number }[];
  /** Zero-cost serving: the whole reply in one write, at once. */
  burst?: boolean;
  /**
   * Each content chunk carries `stamp_ns`, the server's clock (process.hrtime, the same monotonic clock every client
   * on this machine reads) just before its write, and the log keeps the stamps as `writesNs`: any client, in any
   * language, measures how late it saw each chunk.
   */
  stamped?: boolean;
}

export interface WireLogEntry {
  seed: number;
  /** When the socket read that completed the request's headers returned, before any parsing. */
  receivedNs: string;
  /** When each content chunk's write returned (its bytes are in the peer's receive buffer on loopback); a stamped
   * reply's stamps, taken just before each write. */
  writesNs: string[];
  /**
   * A stamped reply's: when each chunk's write returned. Its gap to the stamp is the server's own delay (a collection
   * or a preemption of the server between the stamp and the syscall), which every client's lateness then includes.
   */
  sentNs?: string[];
  endNs: string | null;
}

/** An entry as the server keeps it: nanosecond readings as doubles (exact for 104 days of uptime), no string each. */
interface KeptEntry {
  seed: number;
  receivedNs: bigint;
  writes: number[];
  sent: number[] | null;
  endNs: bigint | null;
}

const published = (e: KeptEntry): WireLogEntry => ({
  seed: e.seed,
  receivedNs: String(e.receivedNs),
  writesNs: e.writes.map((t) => String(BigInt(t))),
  ...(e.sent ? { sentNs: e.sent.map((t) => String(BigInt(t))) } : {}),
  endNs: e.endNs === null ? null : String(e.endNs),
});

const nowNs = () => Number(process.hrtime.bigint());

const chunkJson = (content: string | null, finish: string | null, stampNs?: string) =>
  JSON.stringify({
    id: "chatcmpl-wire",
    object: "chat.completion.chunk",
    model: "bench",
    ...(stampNs === undefined ? {} : { stamp_ns: stampNs }),
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
  });

/** Stamps are written zero-padded to this width, so a stamped chunk's frame is built whole before its stamp is read. */
const STAMP_DIGITS = 20;
const STAMP_HOLE = "#".repeat(STAMP_DIGITS);

/**
 * A stamped chunk's HTTP frame split around its stamp: everything but the stamp's digits is allocated before the
 * clock is read, so the server's own collections land before the stamp, not between it and the write.
 */
function stampedFrame(text: string): [string, string] {
  const frame = httpChunk(event(chunkJson(text, null, STAMP_HOLE)));
  const at = frame.indexOf(STAMP_HOLE);
  return [frame.slice(0, at), frame.slice(at + STAMP_DIGITS)];
}

const event = (data: string) => `data: ${data}\n\n`;
const hex = (s: string) => Buffer.byteLength(s).toString(16);
/** One HTTP/1.1 chunk of the chunked transfer encoding. */
const httpChunk = (s: string) => `${hex(s)}\r\n${s}\r\n`;

/**
 * The fidelity benchmark's truth: a bare HTTP/1.1 server on `node:net`, so that its clock readings sit next to the
 * socket calls. Node's `http` server runs each request's header parsing and handler before it reads the next socket,
 * which on a burst of 20 arrivals makes the later ones' "received" times late by the earlier ones' work; here a read
 * is timestamped first and parsed after every socket that was ready has been read. Speaks only what the judge sends:
 * POST with Content-Length, keep-alive, one request at a time per connection; GET /log returns the timings.
 */
export async function startWireServer(
  script: (seed: number) => WireReply,
  options: { spin?: boolean } = {},
): Promise<{ url: string; close(): void }> {
  const log: KeptEntry[] = [];
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    let buffered: Buffer = Buffer.alloc(0);
    let firstByteNs: bigint | null = null;
    socket.on("data", (data: Buffer) => {
      const t = process.hrtime.bigint();
      firstByteNs ??= t;
      buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
      const arrived = firstByteNs;
      setImmediate(() => parse(socket, arrived));
    });
    socket.on("error", () => socket.destroy());

    function parse(s: Socket, arrivedNs: bigint) {
      const headerEnd = buffered.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const head = buffered.subarray(0, headerEnd).toString("latin1");
      const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      const length = match ? Number(match[1]) : 0;
      if (buffered.length < headerEnd + 4 + length) return;
      const body = buffered.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8");
      buffered = buffered.subarray(headerEnd + 4 + length);
      firstByteNs = null;
      const [method, path] = head.split(" ", 2);
      if (method === "GET" && path === "/log") return respondJson(s, JSON.stringify(log.map(published)));
      if (method === "GET" && path?.startsWith("/log/take?")) return respondJson(s, JSON.stringify(take(path)));
      if (method === "GET" && path === "/metrics") return respondJson(s, "");
      if (method !== "POST" || path !== "/v1/chat/completions") return respondJson(s, "{}", 404);
      stream(s, arrivedNs, Number((JSON.parse(body) as { seed: unknown }).seed));
    }
  });

  /** `/log/take?from=A&to=B`: the entries of seeds in [A, B), removed from the log (a long benchmark's log stays small). */
  function take(path: string): WireLogEntry[] {
    const q = new URLSearchParams(path.slice(path.indexOf("?") + 1));
    const from = Number(q.get("from"));
    const to = Number(q.get("to"));
    const taken: WireLogEntry[] = [];
    let kept = 0;
    for (const e of log) {
      if (e.seed >= from && e.seed < to) taken.push(published(e));
      else log[kept++] = e;
    }
    log.length = kept;
    return taken;
  }

  function respondJson(s: Socket, text: string, status = 200) {
    s.write(
      `HTTP/1.1 ${status} ${status === 200 ? "OK" : "Not Found"}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(text)}\r\nconnection: keep-alive\r\n\r\n${text}`,
    );
  }

  function stream(s: Socket, receivedNs: bigint, seed: number) {
    const reply = script(seed);
    const entry: KeptEntry = { seed, receivedNs, writes: [], sent: reply.stamped ? [] : null, endNs: null };
    log.push(entry);
    s.write(
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n" +
        "transfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n",
    );
    const tail = () => `${httpChunk(event(chunkJson(null, "stop")) + event("[DONE]"))}0\r\n\r\n`;
    if (reply.burst) {
      s.write(httpChunk(reply.chunks.map((c) => event(chunkJson(c.text, null))).join("")) + tail());
      entry.endNs = process.hrtime.bigint();
      entry.writes.push(Number(entry.endNs));
      return;
    }
    // deadlines are absolute from the arrival, so timer slop never accumulates over a reply
    let dueMs = Number(receivedNs) / 1e6 + reply.ttftMs;
    let i = 0;
    const step = () => {
      if (s.destroyed) return;
      if (reply.stamped) {
        const [head, rest] = stampedFrame(reply.chunks[i]!.text);
        const stamp = process.hrtime.bigint();
        s.write(head + String(stamp).padStart(STAMP_DIGITS, "0") + rest);
        entry.sent!.push(nowNs());
        entry.writes.push(Number(stamp));
      } else {
        s.write(httpChunk(event(chunkJson(reply.chunks[i]!.text, null))));
        entry.writes.push(nowNs());
      }
      i++;
      if (i === reply.chunks.length) {
        s.write(tail());
        entry.endNs = process.hrtime.bigint();
        return;
      }
      dueMs += reply.chunks[i]!.gapMs;
      setTimeout(step, Math.max(0, dueMs - Number(process.hrtime.bigint()) / 1e6));
    };
    setTimeout(step, Math.max(0, dueMs - Number(process.hrtime.bigint()) / 1e6));
  }

  // Spinning keeps the loop polling without sleeping, so a request that arrives after an idle spell (a pass's first
  // wave) is read at once rather than after the process is woken: a core's worth of CPU for a truer arrival time.
  let spinning = options.spin === true;
  const spin = () => {
    if (spinning) setImmediate(spin);
  };
  spin();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      spinning = false;
      server.close();
    },
  };
}
