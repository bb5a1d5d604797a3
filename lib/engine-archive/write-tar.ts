/** A file to pack; paths are written as given (the reader decides what is acceptable). */
export interface TarInput {
  path: string;
  data?: Uint8Array;
  mode?: number;
  type?: "file" | "directory" | "symlink";
  linkTarget?: string;
}

const BLOCK = 512;
const encoder = new TextEncoder();

function writeString(block: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = encoder.encode(value);
  if (bytes.length > length) throw new Error(`tar field too long: ${value}`);
  block.set(bytes, offset);
}

function writeOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  writeString(block, offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
}

function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`;
  let length = encoder.encode(body).length;
  length += String(length).length;
  if (String(length).length !== String(length - String(length).length).length) length += 1;
  return encoder.encode(`${length}${body}`);
}

function header(path: string, size: number, mode: number, typeflag: string, linkTarget: string): Uint8Array {
  const block = new Uint8Array(BLOCK);
  writeString(block, 0, 100, path);
  writeOctal(block, 100, 8, mode);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0);
  block.fill(32, 148, 156);
  writeString(block, 156, 1, typeflag);
  writeString(block, 157, 100, linkTarget);
  writeString(block, 257, 6, "ustar\0");
  writeString(block, 263, 2, "00");
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

function padded(data: Uint8Array): Uint8Array[] {
  const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
  return pad ? [data, new Uint8Array(pad)] : [data];
}

/** Writes a ustar archive (long paths through pax headers). Runs in the browser and in Node. */
export function writeTar(inputs: readonly TarInput[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const input of inputs) {
    const type = input.type ?? "file";
    const data = type === "file" ? (input.data ?? new Uint8Array()) : new Uint8Array();
    const mode = input.mode ?? (type === "directory" ? 0o755 : 0o644);
    let name = input.path;
    if (encoder.encode(name).length > 99) {
      const pax = paxRecord("path", name);
      parts.push(header("././@PaxHeader", pax.length, 0o644, "x", ""), ...padded(pax));
      name = name.slice(-90);
    }
    const flag = type === "directory" ? "5" : type === "symlink" ? "2" : "0";
    parts.push(header(name, data.length, mode, flag, input.linkTarget ?? ""), ...padded(data));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
