import { StringDecoder } from "node:string_decoder";

/** Splits a byte stream into lines; a line (or a UTF-8 character) split across chunks is joined. */
export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8");
  private partial = "";

  push(chunk: Buffer | string): string[] {
    const text = this.partial + (typeof chunk === "string" ? chunk : this.decoder.write(chunk));
    const lines = text.split("\n");
    this.partial = lines.pop() ?? "";
    return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  }

  /** The unterminated last line, if any, when the stream has truly ended. */
  flush(): string[] {
    const rest = this.partial + this.decoder.end();
    this.partial = "";
    return rest === "" ? [] : [rest];
  }

  /** Drops an unterminated line: a resumed stream sends it again from its start. */
  discardPartial(): void {
    this.partial = "";
    this.decoder.end();
  }
}

export interface TimestampedLine {
  /** Nanoseconds since the epoch, exact. */
  at: bigint;
  text: string;
}

const TIMESTAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) (.*)$/s;

/** Parses a line of a `timestamps=true` pod log (RFC 3339 with nanoseconds, a space, the line). */
export function parseTimestampedLine(line: string): TimestampedLine | null {
  const m = TIMESTAMPED.exec(line);
  if (!m) return null;
  const seconds = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(seconds)) return null;
  const nanos = BigInt((m[2] ?? "").padEnd(9, "0"));
  return { at: BigInt(seconds) * 1_000_000n + nanos, text: m[4] ?? "" };
}

/** The `sinceTime` to resume a log from: whole seconds, never after `at`. */
export function sinceTimeFor(at: bigint): string {
  const seconds = at / 1_000_000_000n;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Remembers how far a timestamped log has been read, so a stream that was cut and reopened
 * from `sinceTime` (second precision) yields each line once.
 */
export class LogCursor {
  private last: bigint | null = null;
  private seenAtLast = 0;
  private skipAtLast = 0;

  /** Call before reopening: lines at the last timestamp already read are skipped again. */
  rewind(): string | undefined {
    this.skipAtLast = this.seenAtLast;
    return this.last === null ? undefined : sinceTimeFor(this.last);
  }

  /** True when the line is new. */
  accept(line: TimestampedLine): boolean {
    if (this.last !== null && line.at < this.last) return false;
    if (this.last !== null && line.at === this.last) {
      if (this.skipAtLast > 0) {
        this.skipAtLast--;
        return false;
      }
      this.seenAtLast++;
      return true;
    }
    this.last = line.at;
    this.seenAtLast = 1;
    this.skipAtLast = 0;
    return true;
  }
}
