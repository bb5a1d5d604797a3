import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { env } from "../env";
import { TarStreamReader } from "./read-tar";

/** The most an engine archive may unpack to by default (the protocol's repository limit). */
export const MAX_UNPACKED_BYTES = 200 * 1024 * 1024;

/** The most bytes one name in a path may have (Linux's NAME_MAX). */
export const MAX_NAME_BYTES = 255;
/** The most bytes an entry's path may have, so that it fits PATH_MAX under any evaluation's folder. */
export const MAX_PATH_BYTES = 1024;

/** What an inline engine archive may unpack to: the settings ENGINE_ARCHIVE_MAX_UNPACKED_BYTES and _MAX_FILES. */
export interface ArchiveLimits {
  maxUnpackedBytes: number;
  /** Files and folders together. */
  maxFiles: number;
}

export function archiveLimits(): ArchiveLimits {
  return { maxUnpackedBytes: env().ENGINE_ARCHIVE_MAX_UNPACKED_BYTES, maxFiles: env().ENGINE_ARCHIVE_MAX_FILES };
}

export interface PlannedFile {
  path: string;
  size: number;
  mode: number;
}

/**
 * An archive as it will be written: the folders to make (every parent before its children) and the files, each
 * path once. Extraction writes exactly this and nothing else, so whatever inspection passes extracts.
 */
export interface InspectedArchive {
  sha256: string;
  files: PlannedFile[];
  directories: string[];
  unpackedBytes: number;
}

/** Where extraction writes one planned file's data as it streams. */
export interface FileSink {
  write(chunk: Buffer): Promise<void>;
  close(): Promise<void>;
}

export class ArchiveError extends Error {}

/** Normalises an entry's path; refuses absolute paths and any path that climbs out of the directory. */
export function safeRelativePath(raw: string): string {
  if (raw.startsWith("/") || /^[A-Za-z]:[\\/]/.test(raw)) throw new ArchiveError(`path "${raw}" is absolute`);
  const parts: string[] = [];
  for (const part of raw.split(/[\\/]+/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") throw new ArchiveError(`path "${raw}" escapes the engine directory`);
    parts.push(part);
  }
  return parts.join("/");
}

/** Scans at once per process: inflating runs on libuv's threads, and a few of those stay free for everything else. */
const SCANS_AT_ONCE = 2;
let scansRunning = 0;
const scansWaiting: (() => void)[] = [];

async function inScanSlot<T>(work: () => Promise<T>): Promise<T> {
  if (scansRunning >= SCANS_AT_ONCE) await new Promise<void>((resolve) => scansWaiting.push(resolve));
  scansRunning += 1;
  try {
    return await work();
  } finally {
    scansRunning -= 1;
    scansWaiting.shift()?.();
  }
}

const PIECE = 64 * 1024;

/**
 * The archive's tar bytes as they inflate, in pieces: zlib's stream inflates on libuv's thread pool, never on the
 * thread that serves requests, and nothing is held beyond the piece being read. A gzip error is the archive's.
 */
async function* inflate(gz: Buffer): AsyncGenerator<Buffer> {
  const pieces = function* () {
    for (let at = 0; at < gz.length; at += PIECE) yield gz.subarray(at, at + PIECE);
  };
  const source = Readable.from(pieces(), { objectMode: false });
  const gunzip = createGunzip({ chunkSize: PIECE });
  source.on("error", (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError("is not a gzip file (expected a .tar.gz)");
  } finally {
    source.unpipe(gunzip);
    source.destroy();
    gunzip.destroy();
  }
}

/**
 * The one pass inspection and extraction share: inflates and reads the archive as it streams, checks every entry
 * as the protocol requires (`launch.sh` a file at its top, no links, no special files, no path that escapes, nothing
 * extraction could not write: a path named twice, a file where a folder must be or the other way round, a name or
 * path too long for the file system) and the limits (files and folders, unpacked bytes, refused as soon as a header
 * declares too much, and again on the bytes that actually inflate). With `openFile`, each planned file's data is
 * written as it streams; without, the data is passed over and never held.
 */
export async function scanEngineArchive(
  gz: Buffer,
  limits: ArchiveLimits,
  openFile?: (file: PlannedFile) => Promise<FileSink>,
): Promise<InspectedArchive> {
  return inScanSlot(async () => {
    const tooLarge = () =>
      new ArchiveError(`unpacks to more than ${limits.maxUnpackedBytes.toLocaleString("en")} bytes (the limit)`);
    // Headers, padding and long-path records: a few KiB per entry at most, on top of the files' own bytes.
    const inflateCap = limits.maxUnpackedBytes + 4096 * (limits.maxFiles + 16);
    const reader = new TarStreamReader();
    const plan = new ExtractionPlan();
    let entries = 0;
    let unpackedBytes = 0;
    let inflated = 0;
    let sink: { sink: FileSink; left: number } | null = null;
    const closeSink = async () => {
      const open = sink;
      sink = null;
      if (open) await open.sink.close();
    };
    try {
      for await (const chunk of inflate(gz)) {
        inflated += chunk.length;
        if (inflated > inflateCap) throw tooLarge();
        let items: ReturnType<TarStreamReader["push"]>;
        try {
          items = reader.push(chunk);
        } catch (error) {
          throw new ArchiveError(`is not a tar archive inside its gzip (${(error as Error).message})`);
        }
        for (const item of items) {
          if (item.kind === "data") {
            if (!sink) continue;
            await sink.sink.write(item.chunk);
            sink.left -= item.chunk.length;
            if (sink.left <= 0) await closeSink();
            continue;
          }
          const entry = item.header;
          entries += 1;
          if (entries > limits.maxFiles) {
            throw new ArchiveError(
              `holds more than ${limits.maxFiles.toLocaleString("en")} files and folders (the limit)`,
            );
          }
          const path = safeRelativePath(entry.path);
          if (entry.type === "symlink" || entry.type === "hardlink") {
            throw new ArchiveError(`holds a link ("${entry.path}" → "${entry.linkTarget}"); links are not allowed`);
          }
          if (entry.type === "other")
            throw new ArchiveError(`holds "${entry.path}", which is neither a file nor a directory`);
          if (path === "") continue;
          if (entry.type === "directory") {
            plan.directory(path);
            continue;
          }
          unpackedBytes += entry.size;
          if (unpackedBytes > limits.maxUnpackedBytes) throw tooLarge();
          const file = { path, size: entry.size, mode: entry.mode };
          plan.file(file);
          if (openFile) {
            sink = { sink: await openFile(file), left: entry.size };
            if (entry.size === 0) await closeSink();
          }
        }
        if (reader.finished) break;
      }
      if (!reader.finished) {
        try {
          reader.end();
        } catch (error) {
          throw new ArchiveError(`is not a tar archive inside its gzip (${(error as Error).message})`);
        }
      }
    } finally {
      await closeSink();
    }
    if (entries === 0) throw new ArchiveError("is an empty archive");
    const { files, directories } = plan;
    if (!files.some((f) => f.path === "launch.sh")) {
      throw new ArchiveError(
        plan.kindOf("launch.sh") === "directory"
          ? 'holds "launch.sh" as a folder: it must be a file'
          : "has no launch.sh at its top level (the engine directory must hold launch.sh)",
      );
    }
    return { sha256: createHash("sha256").update(gz).digest("hex"), files, directories, unpackedBytes };
  });
}

/** Checks an engine archive, streamed within `limits`, and returns what extraction will write. */
export async function inspectEngineArchive(
  gz: Buffer,
  limits: ArchiveLimits = archiveLimits(),
): Promise<InspectedArchive> {
  return scanEngineArchive(gz, limits);
}

/** What each path of the engine directory will be; every conflict extraction would meet is refused here. */
class ExtractionPlan {
  private readonly kinds = new Map<string, "file" | "directory">();
  readonly files: PlannedFile[] = [];
  readonly directories: string[] = [];

  kindOf(path: string): "file" | "directory" | undefined {
    return this.kinds.get(path);
  }

  file(file: PlannedFile): void {
    this.checkName(file.path);
    this.parentsOf(file.path);
    const held = this.kinds.get(file.path);
    if (held === "file") throw new ArchiveError(`holds "${file.path}" twice: each path may appear once`);
    if (held === "directory") throw new ArchiveError(`holds "${file.path}" both as a file and as a folder`);
    this.kinds.set(file.path, "file");
    this.files.push(file);
  }

  /** A folder named twice is one folder: tar itself writes some twice (`tar -r`), and nothing is lost. */
  directory(path: string): void {
    this.checkName(path);
    this.parentsOf(path);
    const held = this.kinds.get(path);
    if (held === "file") throw new ArchiveError(`holds "${path}" both as a file and as a folder`);
    if (held === undefined) {
      this.kinds.set(path, "directory");
      this.directories.push(path);
    }
  }

  /**
   * Every parent of a path is a folder, made before it. A parent already planned as a folder had all of its own
   * parents checked when it was, so the walk stops there: each entry costs its own path's length, not its square.
   */
  private parentsOf(path: string): void {
    const missing: string[] = [];
    for (let cut = path.lastIndexOf("/"); cut > 0; cut = path.lastIndexOf("/", cut - 1)) {
      const parent = path.slice(0, cut);
      const held = this.kinds.get(parent);
      if (held === "file")
        throw new ArchiveError(`holds "${path}" inside "${parent}", which the archive also holds as a file`);
      if (held === "directory") break;
      missing.push(parent);
    }
    for (const parent of missing.reverse()) {
      this.kinds.set(parent, "directory");
      this.directories.push(parent);
    }
  }

  private checkName(path: string): void {
    if (path.includes("\0")) throw new ArchiveError(`holds a path with a NUL character ("${path.slice(0, 60)}…")`);
    if (Buffer.byteLength(path) > MAX_PATH_BYTES)
      throw new ArchiveError(`holds a path longer than ${MAX_PATH_BYTES} bytes ("${path.slice(0, 60)}…")`);
    const long = path.split("/").find((name) => Buffer.byteLength(name) > MAX_NAME_BYTES);
    if (long) throw new ArchiveError(`holds a name longer than ${MAX_NAME_BYTES} bytes ("${long.slice(0, 60)}…")`);
  }
}
