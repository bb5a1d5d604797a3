/** One server-sent event: its `event` field ("message" when absent) and its data lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * A streaming SSE parser (the WHATWG event-stream grammar): bytes arrive in arbitrary transport chunks, so a line,
 * a multi-byte character, or a CRLF pair may be split anywhere. Comments (`:` lines) are dropped; an event is
 * dispatched at a blank line; data lines accumulate with "\n" between them.
 */
export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private line = "";
  private data: string[] = [];
  private eventName = "";
  private sawCr = false;

  /** Feeds one transport chunk; returns the events it completed, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 /* \n */) {
        if (this.sawCr && i === start && this.line === "") {
          // the \n of a \r\n pair split across chunks or right after a \r line end
          this.sawCr = false;
          start = i + 1;
          continue;
        }
        this.sawCr = false;
        this.endLine(this.line + text.slice(start, i), out);
        this.line = "";
        start = i + 1;
      } else if (c === 13 /* \r */) {
        this.endLine(this.line + text.slice(start, i), out);
        this.line = "";
        this.sawCr = true;
        start = i + 1;
        if (text.charCodeAt(i + 1) === 10) {
          i++;
          start = i + 1;
          this.sawCr = false;
        }
      } else if (this.sawCr) {
        this.sawCr = false;
      }
    }
    if (start < text.length) this.line += text.slice(start);
    return out;
  }

  /** The end of the stream: a final event without its blank line is dropped, as the grammar says. */
  end(): SseEvent[] {
    const tail = this.decoder.decode();
    return tail ? this.push(tail) : [];
  }

  private endLine(line: string, out: SseEvent[]): void {
    if (line === "") {
      if (this.data.length > 0) out.push({ event: this.eventName || "message", data: this.data.join("\n") });
      this.data = [];
      this.eventName = "";
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.eventName = value;
  }
}
