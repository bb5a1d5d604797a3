/** One entry of a tar archive, as the arena reads it. */
export interface TarEntry {
  path: string;
  type: "file" | "directory" | "symlink" | "hardlink" | "other";
  mode: number;
  size: number;
  data: Buffer;
  linkTarget: string;
}

const BLOCK = 512;

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

/** Reads an uncompressed tar (ustar, pax and GNU long names). Throws a plain message when it is not one. */
export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let pendingPath: string | undefined;
  let pendingLink: string | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header)) throw new Error("not a tar archive: header checksum mismatch");
    const size = octal(header, 124, 12);
    const typeflag = String.fromCharCode(header[156]!);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > archive.length) throw new Error("not a tar archive: truncated entry");
    const data = archive.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (typeflag === "x") {
      const pax = parsePax(data);
      if (pax.path) pendingPath = pax.path;
      if (pax.linkpath) pendingLink = pax.linkpath;
      continue;
    }
    if (typeflag === "g") continue;
    if (typeflag === "L") {
      pendingPath = cString(data, 0, data.length);
      continue;
    }
    if (typeflag === "K") {
      pendingLink = cString(data, 0, data.length);
      continue;
    }
    const magic = cString(header, 257, 6);
    const prefix = magic.startsWith("ustar") ? cString(header, 345, 155) : "";
    const name = cString(header, 0, 100);
    const path = pendingPath ?? (prefix ? `${prefix}/${name}` : name);
    const linkTarget = pendingLink ?? cString(header, 157, 100);
    pendingPath = undefined;
    pendingLink = undefined;
    const type: TarEntry["type"] =
      typeflag === "0" || typeflag === "\0" || typeflag === "7"
        ? "file"
        : typeflag === "5"
          ? "directory"
          : typeflag === "2"
            ? "symlink"
            : typeflag === "1"
              ? "hardlink"
              : "other";
    entries.push({ path, type, mode: octal(header, 100, 8), size, data, linkTarget });
  }
  return entries;
}
