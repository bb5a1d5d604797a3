/** One server-sent event: its `event` field ("message" when absent) and its data lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/** Takes each event as it completes: its type ("message" when the stream named none) and its data. */
export type SseSink = (event: string, data: string) => void;

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/** A buffer of at least `needed` bytes holding the first `keep` bytes of `buf`. */
function ensure(buf: Buffer, keep: number, needed: number): Buffer {
  if (needed <= buf.length) return buf;
  const grown = Buffer.allocUnsafe(Math.max(needed, buf.length * 2));
  buf.copy(grown, 0, 0, keep);
  return grown;
}

const isData = (b: Uint8Array, at: number, length: number) =>
  length === 4 && b[at] === 100 && b[at + 1] === 97 && b[at + 2] === 116 && b[at + 3] === 97;
const isEvent = (b: Uint8Array, at: number, length: number) =>
  length === 5 && b[at] === 101 && b[at + 1] === 118 && b[at + 2] === 101 && b[at + 3] === 110 && b[at + 4] === 116;

/**
 * A streaming SSE parser (the WHATWG event-stream grammar) that works on bytes: transport chunks split a line, a
 * multi-byte character or a CRLF pair anywhere. Comments (`:` lines) are dropped; an event is dispatched at a blank
 * line; data lines join with "\n"; a leading byte-order mark is skipped; `id` and `retry` are ignored.
 *
 * It allocates nothing per event but the data's string: line and data bytes go to buffers kept for the stream, and
 * an event whose one data line ends in the chunk that completes it is decoded straight from that chunk. Line ends
 * are bytes 10 and 13, which no multi-byte UTF-8 sequence holds, so decoding a whole value at once is decoding the
 * stream.
 */
export class SseParser {
  /** The bytes of the line a transport chunk ended inside. */
  private line: Buffer = Buffer.allocUnsafe(256);
  private lineLength = 0;
  /** The event's data so far, once it no longer sits in the chunk being parsed. */
  private data: Buffer = Buffer.allocUnsafe(1024);
  private dataLength = 0;
  private hasData = false;
  /** The event's one data line, still in the chunk being parsed (copied to `data` only when the chunk ends first). */
  private refChunk: Buffer | null = null;
  private refStart = 0;
  private refEnd = 0;
  /** The event's `event` field; empty for "message". */
  private eventName = "";
  /** The last line ended at a CR: an LF right after it is that line end's second half. */
  private sawCr = false;
  private firstLine = true;

  /** Feeds one transport chunk; `sink` takes each event it completes, in order. */
  feed(input: Uint8Array, sink: SseSink): void {
    const chunk = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    const n = chunk.length;
    let start = 0;
    for (let i = 0; i < n; i++) {
      const c = chunk[i]!;
      if (c !== LF && c !== CR) continue;
      if (c === LF && this.sawCr && i === start && this.lineLength === 0) {
        // the LF of a CRLF pair, perhaps in the next chunk after its CR
        this.sawCr = false;
        start = i + 1;
        continue;
      }
      this.sawCr = c === CR;
      if (this.lineLength === 0) this.endLine(chunk, start, i, true, sink);
      else {
        this.appendLine(chunk, start, i);
        this.endLine(this.line, 0, this.lineLength, false, sink);
        this.lineLength = 0;
      }
      start = i + 1;
    }
    if (start < n) this.appendLine(chunk, start, n);
    if (this.refChunk !== null) this.keepRef();
  }

  /** Feeds one transport chunk (or text) and returns the events it completed. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const out: SseEvent[] = [];
    this.feed(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk, (event, data) =>
      out.push({ event, data }),
    );
    return out;
  }

  /** The end of the stream: a final event without its blank line is dropped, as the grammar says. */
  end(): SseEvent[] {
    this.lineLength = 0;
    this.resetEvent();
    this.sawCr = false;
    return [];
  }

  private appendLine(src: Buffer, from: number, to: number): void {
    this.line = ensure(this.line, this.lineLength, this.lineLength + (to - from));
    src.copy(this.line, this.lineLength, from, to);
    this.lineLength += to - from;
  }

  private endLine(src: Buffer, from: number, to: number, inChunk: boolean, sink: SseSink): void {
    let a = from;
    if (this.firstLine) {
      this.firstLine = false;
      if (to - a >= 3 && src[a] === 0xef && src[a + 1] === 0xbb && src[a + 2] === 0xbf) a += 3;
    }
    if (a === to) {
      this.dispatch(sink);
      return;
    }
    if (src[a] === COLON) return;
    let colon = a;
    while (colon < to && src[colon] !== COLON) colon++;
    let value = colon < to ? colon + 1 : to;
    if (value < to && src[value] === SPACE) value++;
    if (isData(src, a, colon - a)) this.appendData(src, value, to, inChunk);
    else if (isEvent(src, a, colon - a)) this.eventName = src.toString("utf8", value, to);
  }

  private appendData(src: Buffer, from: number, to: number, inChunk: boolean): void {
    if (!this.hasData) {
      this.hasData = true;
      if (inChunk) {
        this.refChunk = src;
        this.refStart = from;
        this.refEnd = to;
        return;
      }
    } else {
      if (this.refChunk !== null) this.keepRef();
      this.data = ensure(this.data, this.dataLength, this.dataLength + 1);
      this.data[this.dataLength++] = LF;
    }
    this.data = ensure(this.data, this.dataLength, this.dataLength + (to - from));
    src.copy(this.data, this.dataLength, from, to);
    this.dataLength += to - from;
  }

  /** Copies the data line still referenced in a chunk into `data`, before that chunk is let go or more is added. */
  private keepRef(): void {
    const ref = this.refChunk!;
    this.refChunk = null;
    this.dataLength = 0;
    this.data = ensure(this.data, 0, this.refEnd - this.refStart);
    ref.copy(this.data, 0, this.refStart, this.refEnd);
    this.dataLength = this.refEnd - this.refStart;
  }

  private dispatch(sink: SseSink): void {
    if (!this.hasData) {
      this.eventName = "";
      return;
    }
    const data =
      this.refChunk !== null
        ? this.refChunk.toString("utf8", this.refStart, this.refEnd)
        : this.data.toString("utf8", 0, this.dataLength);
    const event = this.eventName === "" ? "message" : this.eventName;
    this.resetEvent();
    sink(event, data);
  }

  private resetEvent(): void {
    this.hasData = false;
    this.refChunk = null;
    this.dataLength = 0;
    this.eventName = "";
  }
}
