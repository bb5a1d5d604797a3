/** One entry's header, as the arena reads it (its data follows as `data` items). */
export interface TarHeader {
  path: string;
  type: "file" | "directory" | "symlink" | "hardlink" | "other";
  mode: number;
  size: number;
  linkTarget: string;
}

/** One entry of a tar archive with its data, as `readTar` returns them. */
export interface TarEntry extends TarHeader {
  data: Buffer;
}

/** What a chunk of a tar stream holds, in order: an entry's header, then its data in pieces. */
export type TarItem = { kind: "entry"; header: TarHeader } | { kind: "data"; chunk: Buffer };

const BLOCK = 512;
/** The most bytes a pax or GNU long-name header may carry: a path is at most a few KiB, never megabytes. */
export const MAX_META_BYTES = 64 * 1024;

function cString(buf: Buffer, start: number, length: number): string {
  const slice = buf.subarray(start, start + length);
  const nul = slice.indexOf(0);
  return slice.subarray(0, nul === -1 ? slice.length : nul).toString("utf8");
}

function octal(buf: Buffer, start: number, length: number): number {
  const field = buf.subarray(start, start + length);
  // GNU base-256 for large values: high bit of the first byte set.
  if ((field[0]! & 0x80) !== 0) {
    let value = 0;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const text = cString(buf, start, length).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new Error(`not a tar archive: bad octal field "${text}"`);
  return Number.parseInt(text, 8);
}

function checksumOk(header: Buffer): boolean {
  const stored = octal(header, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum === stored;
}

function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space === -1) break;
    const length = Number.parseInt(data.subarray(offset, space).toString("utf8"), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, offset + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    offset += length;
  }
  return out;
}

function entryType(typeflag: string): TarHeader["type"] {
  if (typeflag === "0" || typeflag === "\0" || typeflag === "7") return "file";
  if (typeflag === "5") return "directory";
  if (typeflag === "2") return "symlink";
  if (typeflag === "1") return "hardlink";
  return "other";
}

/**
 * Reads an uncompressed tar (ustar, pax and GNU long names) as it streams: `push` takes the next chunk and returns
 * what it completed. Data items are views of the pushed chunks, never copies, so an entry of any size costs nothing
 * to pass over; only a pax or long-name header's data (at most MAX_META_BYTES) is held. Throws a plain message when
 * the bytes are not a tar archive.
 */
export class TarStreamReader {
  private header = Buffer.alloc(BLOCK);
  private headerFill = 0;
  /** Bytes of the current entry's data still to come, then of its padding. */
  private dataLeft = 0;
  private padLeft = 0;
  /** A pax or long-name header whose data is being collected. */
  private meta: { typeflag: string; parts: Buffer[] } | null = null;
  private pendingPath: string | undefined;
  private pendingLink: string | undefined;
  private ended = false;

  /** True once the end-of-archive block was read: whatever follows is not part of the archive. */
  get finished(): boolean {
    return this.ended;
  }

  push(chunk: Buffer): TarItem[] {
    const items: TarItem[] = [];
    let at = 0;
    while (at < chunk.length && !this.ended) {
      if (this.dataLeft > 0) {
        const take = Math.min(this.dataLeft, chunk.length - at);
        const piece = chunk.subarray(at, at + take);
        at += take;
        this.dataLeft -= take;
        if (this.meta) this.meta.parts.push(Buffer.from(piece));
        else items.push({ kind: "data", chunk: piece });
        if (this.dataLeft === 0 && this.meta) this.finishMeta();
        continue;
      }
      if (this.padLeft > 0) {
        const skip = Math.min(this.padLeft, chunk.length - at);
        at += skip;
        this.padLeft -= skip;
        continue;
      }
      const take = Math.min(BLOCK - this.headerFill, chunk.length - at);
      chunk.copy(this.header, this.headerFill, at, at + take);
      this.headerFill += take;
      at += take;
      if (this.headerFill === BLOCK) {
        this.headerFill = 0;
        const item = this.readHeader(this.header);
        if (item) items.push(item);
      }
    }
    return items;
  }

  /** The stream ended: refuses an archive cut inside an entry's data. */
  end(): void {
    if (this.dataLeft > 0 || this.meta) throw new Error("not a tar archive: truncated entry");
  }

  private readHeader(header: Buffer): TarItem | null {
    if (header.every((b) => b === 0)) {
      this.ended = true;
      return null;
    }
    if (!checksumOk(header)) throw new Error("not a tar archive: header checksum mismatch");
    const size = octal(header, 124, 12);
    const typeflag = String.fromCharCode(header[156]!);
    this.dataLeft = size;
    this.padLeft = (BLOCK - (size % BLOCK)) % BLOCK;
    if (typeflag === "x" || typeflag === "g" || typeflag === "L" || typeflag === "K") {
      if (size > MAX_META_BYTES)
        throw new Error(`not a tar archive: an extended header of ${size} bytes (at most ${MAX_META_BYTES})`);
      this.meta = { typeflag, parts: [] };
      if (size === 0) this.finishMeta();
      return null;
    }
    const magic = cString(header, 257, 6);
    const prefix = magic.startsWith("ustar") ? cString(header, 345, 155) : "";
    const name = cString(header, 0, 100);
    const path = this.pendingPath ?? (prefix ? `${prefix}/${name}` : name);
    const linkTarget = this.pendingLink ?? cString(header, 157, 100);
    this.pendingPath = undefined;
    this.pendingLink = undefined;
    return {
      kind: "entry",
      header: { path, type: entryType(typeflag), mode: octal(header, 100, 8), size, linkTarget },
    };
  }

  private finishMeta(): void {
    const { typeflag, parts } = this.meta!;
    this.meta = null;
    const data = Buffer.concat(parts);
    if (typeflag === "x") {
      const pax = parsePax(data);
      if (pax.path) this.pendingPath = pax.path;
      if (pax.linkpath) this.pendingLink = pax.linkpath;
    } else if (typeflag === "L") {
      this.pendingPath = cString(data, 0, data.length);
    } else if (typeflag === "K") {
      this.pendingLink = cString(data, 0, data.length);
    }
  }
}

/** Reads a whole uncompressed tar held in memory, each entry with its data (tests and small archives). */
export function readTar(archive: Buffer): TarEntry[] {
  const reader = new TarStreamReader();
  const entries: TarEntry[] = [];
  let parts: Buffer[] = [];
  const close = () => {
    const last = entries.at(-1);
    if (last) last.data = Buffer.concat(parts);
    parts = [];
  };
  // The archive as whole blocks: trailing bytes short of a block were never part of an entry.
  for (const item of reader.push(archive.subarray(0, archive.length - (archive.length % BLOCK)))) {
    if (item.kind === "entry") {
      close();
      entries.push({ ...item.header, data: Buffer.alloc(0) });
    } else parts.push(item.chunk);
  }
  close();
  reader.end();
  return entries;
}
